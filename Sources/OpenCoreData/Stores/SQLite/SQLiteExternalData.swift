import Foundation

/// Large values of binary attributes that allow external storage, kept in files beside the store
/// as Core Data keeps them (docs/sqlite-format.md §9): the column holds `0x02` and the file's name
/// (a UUID) in `.<StoreName>_SUPPORT/_EXTERNAL_DATA/`; a smaller value stays in the column after
/// `0x01`.
enum SQLiteExternalData {
    /// Values larger than this go to a file: Core Data's threshold as its engineers give it
    /// ("about 100 KB").
    static let threshold = 100 * 1024

    /// `.<StoreName>_SUPPORT/_EXTERNAL_DATA` beside the store file at `url`.
    static func folder(forStoreAt url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT/_EXTERNAL_DATA")
    }

    /// `.<StoreName>_SUPPORT`, which holds the external data folder.
    static func supportFolder(forStoreAt url: URL) -> URL { folder(forStoreAt: url).deletingLastPathComponent() }

    /// The column value naming the file `name`: the tag, the name, and a NUL after it.
    static func reference(to name: String) -> Data { Data([2]) + Data(name.utf8) + Data([0]) }

    /// The file a column value names, if it names one.
    static func fileName(in column: Data) -> String? {
        guard column.first == 2 else { return nil }
        let name = String(decoding: column.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
        // A name leading out of the folder is a damaged or hostile file's, never followed.
        return name.isEmpty || name.contains("/") || name.hasPrefix(".") ? nil : name
    }

    /// Replaces the external data folder of the store at `destination` with a copy of
    /// `source`'s, for `replacePersistentStore` and `migratePersistentStore`; removes it when
    /// `source` has none.
    static func copyFolder(from source: URL, to destination: URL) throws {
        let from = supportFolder(forStoreAt: source)
        let to = supportFolder(forStoreAt: destination)
        if from.standardizedFileURL == to.standardizedFileURL { return }
        try? FileManager.default.removeItem(at: to)
        guard FileManager.default.fileExists(atPath: from.path) else { return }
        try FileManager.default.copyItem(at: from, to: to)
    }
}

/// The external data files one save writes and lets go of: new files are removed if the save
/// rolls back, replaced ones once it commits, so that a file is never missing for a committed
/// row.
final class SQLiteExternalFiles {
    private let folder: URL
    private var written: [String] = []
    private var obsolete: [String] = []
    /// The files the rows being rewritten named, reused when the value is the same.
    private var candidates: [String] = []

    init(storeURL: URL) { folder = SQLiteExternalData.folder(forStoreAt: storeURL) }

    /// The name of a file holding `data`: a file the row already named when it holds the same
    /// bytes, else a new one; nil when the file can't be written (the value then stays in the
    /// column, as a smaller one does).
    func store(_ data: Data) -> String? {
        if let index = candidates.firstIndex(where: { (try? Data(contentsOf: folder.appendingPathComponent($0))) == data }) {
            return candidates.remove(at: index)
        }
        let name = UUID().uuidString
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: folder.appendingPathComponent(name), options: .atomic)
        } catch {
            return nil
        }
        written.append(name)
        return name
    }

    /// A row about to be rewritten or deleted named these files: reused by `store` for equal
    /// values, removed after the commit otherwise.
    func replacing(_ names: [String]) {
        obsolete += candidates
        candidates = names
    }

    /// After the commit: the files no row names any more go.
    func commit() {
        for name in obsolete + candidates { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
        obsolete = []
        candidates = []
        written = []
    }

    /// After a rollback: the files this save wrote go; the old ones stay, still named.
    func rollback() {
        for name in written { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
        obsolete = []
        candidates = []
        written = []
    }
}
