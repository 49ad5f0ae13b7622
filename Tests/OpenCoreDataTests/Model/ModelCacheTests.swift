import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// The model Apple's Core Data writes into every store (`Z_MODELCACHE`: a raw DEFLATE stream of a
/// keyed archive of the model) reads back as a model with the store's version hashes.
@Suite struct ModelCacheTests {
    @Test(arguments: ["SampleModel/Fixtures/SampleModel_V1.sqlite", "SampleModel/Fixtures/SampleModel_V2.sqlite"])
    func applesCacheDecodesToTheStoresModel(_ fixture: String) throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("Store.sqlite")
        try FileManager.default.copyItem(at: Fixtures.url(fixture), to: copy)
        let content = try #require(SQLiteFileCheck.readModelCache(atPath: copy.path))
        #expect(content.prefix(8) != Data("bplist00".utf8), "stored deflated")
        #expect(ModelCache.inflate(content)?.prefix(8) == Data("bplist00".utf8))
        let model = try #require(ModelCache.model(from: content))
        let metadata = try SQLiteFileCheck.readMetadata(atPath: copy.path).metadata
        #expect(StoreMetadata.hashesMatch(metadata, entities: model.entities))
        #expect(model.entities.count == (metadata[NSStoreModelVersionHashesKey] as? [String: Any])?.count)
    }

    /// A cache that is not a deflated model (damaged, cut short, or of something else) is no
    /// model, never a crash.
    @Test func aDamagedCacheIsNoModel() throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("Store.sqlite")
        try FileManager.default.copyItem(at: Fixtures.url("SampleModel/Fixtures/SampleModel_V1.sqlite"), to: copy)
        let content = try #require(SQLiteFileCheck.readModelCache(atPath: copy.path))
        var flipped = content
        flipped[flipped.count / 2] ^= 0xFF
        for damaged in [Data(), content.prefix(content.count / 2), flipped, Data("bplist00".utf8), Data(repeating: 0xFF, count: 64)] {
            #expect(ModelCache.model(from: Data(damaged)) == nil)
        }
    }
}
