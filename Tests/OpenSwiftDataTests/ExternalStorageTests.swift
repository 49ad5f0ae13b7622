import Foundation
import GRDB
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

@Model final class Snapshot {
    var title: String
    @Attribute(.externalStorage) var image: Data
    @Attribute(.externalStorage) var thumbnail: Data?

    init(title: String, image: Data, thumbnail: Data? = nil) {
        self.title = title
        self.image = image
        self.thumbnail = thumbnail
    }
}

/// `@Attribute(.externalStorage)`: a large value goes to a file beside the store, as Apple's
/// store keeps it, a small one stays in its column; both read back equal, and the file goes
/// with its model.
@Suite struct ExternalStorageTests {
    let folder = TemporaryDirectory()

    private var externalFolder: URL { folder.file(".photos_SUPPORT/_EXTERNAL_DATA") }

    private func externalFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: externalFolder.path)) ?? []
    }

    @Test func aLargeValueIsAFileBesideTheStoreAndASmallOneStaysInItsColumn() throws {
        let url = folder.file("photos.store")
        let image = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let thumbnail = Data(repeating: 7, count: 1_000)
        do {
            let context = ModelContext(try ModelContainer(for: Snapshot.self, configurations: ModelConfiguration(url: url)))
            context.insert(Snapshot(title: "harbour", image: image, thumbnail: thumbnail))
            try context.save()
        }
        #expect(externalFiles().count == 1)
        let queue = try DatabaseQueue(path: url.path)
        let markers = try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT ZIMAGE, ZTHUMBNAIL FROM ZSNAPSHOT").map { row -> [UInt8?] in
                [(row["ZIMAGE"] as Data?)?.first, (row["ZTHUMBNAIL"] as Data?)?.first]
            }
        }
        try queue.close()
        // Apple's markers: 0x02 before a file's name, 0x01 before bytes kept in the column.
        #expect(markers == [0x02, 0x01])

        let context = ModelContext(try ModelContainer(for: Snapshot.self, configurations: ModelConfiguration(url: url)))
        let snapshot = try #require(try context.fetch(FetchDescriptor<Snapshot>()).first)
        #expect(snapshot.image == image && snapshot.thumbnail == thumbnail && snapshot.title == "harbour")

        context.delete(snapshot)
        try context.save()
        #expect(externalFiles().isEmpty)
    }
}
