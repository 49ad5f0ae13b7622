import Foundation
import Testing

@testable import OpenCoreData

/// Apple opens a store only if the model's entity hashes equal the ones in the store's metadata,
/// so the hashes of a model loaded from Xcode's XML must be bit-exact with what Xcode and Core
/// Data computed.
@Suite struct VersionHashTests {
    @Test(arguments: FixtureModelVersion.all)
    func entityHashesEqualXcodesVersionInfo(_ version: FixtureModelVersion) throws {
        let expected = try #require(try FixtureMetadata.versionHashes(momd: version.momd)[version.version])
        let model = try version.load()
        #expect(model.entityVersionHashesByName == expected)
        for entity in model.entities {
            let name = try #require(entity.name)
            #expect(entity.versionHash == expected[name], "entity \(name)")
        }
    }

    @Test(arguments: FixtureModelVersion.all.filter { $0.bundle == FixtureModelVersion.sampleModel3Bundle })
    func checksumsEqualXcodesVersionInfo(_ version: FixtureModelVersion) throws {
        let expected = try #require(try FixtureMetadata.versionChecksums(momd: version.momd)[version.version])
        let model = try version.load()
        #expect(VersionHasher.checksum(of: model.entityVersionHashesByName) == expected)
    }

    /// Each fixture store and the model version that wrote it.
    static let stores: [(String, FixtureModelVersion)] = [
        ("SampleModel/Fixtures/SampleModel_V1.sqlite", .sampleModel("SampleModel")),
        ("SampleModel/Fixtures/SampleModel_V2.sqlite", .sampleModel("SampleModel2")),
        ("SampleModel3/Fixtures/SampleModel3_V1.sqlite", .sampleModel3("SampleModel3")),
    ]

    @Test(arguments: stores)
    func modelMatchesTheStoreMetadata(_ store: String, _ version: FixtureModelVersion) throws {
        let metadata = try FixtureMetadata.storeMetadata(store)
        let model = try version.load()
        let hashes = model.entityVersionHashesByName

        #expect(metadata["NSStoreModelVersionHashes"] as? [String: Data] == hashes)
        #expect(VersionHasher.digest(of: hashes) == metadata["NSStoreModelVersionHashesDigest"] as? String)
        if let checksum = metadata["NSStoreModelVersionChecksumKey"] as? String {
            #expect(VersionHasher.checksum(of: hashes) == checksum)
        }
        let identifiers = try #require(metadata["NSStoreModelVersionIdentifiers"] as? [String])
        #expect(model.versionIdentifiers == Set(identifiers.map(AnyHashable.init)))
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func aStoreIsIncompatibleWithAnotherModelVersion() throws {
        let metadata = try FixtureMetadata.storeMetadata("SampleModel/Fixtures/SampleModel_V1.sqlite")
        let model = try FixtureModelVersion.sampleModel("SampleModel2").load()
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    /// The current version of a bundle is what an app opens its store with by default.
    @Test func currentVersionMatchesItsStore() throws {
        let metadata = try FixtureMetadata.storeMetadata("SampleModel3/Fixtures/SampleModel3_V1.sqlite")
        let model = try #require(NSManagedObjectModel(contentsOf: Fixtures.url(FixtureModelVersion.sampleModel3Bundle)))
        #expect(metadata["NSStoreModelVersionHashes"] as? [String: Data] == model.entityVersionHashesByName)
    }

    /// Freezing computes hashes once and caches them; the cached ones must be the same.
    @Test(arguments: FixtureModelVersion.all)
    func frozenHashesAreUnchanged(_ version: FixtureModelVersion) throws {
        let model = try version.load()
        let before = model.entityVersionHashesByName
        try model.freeze()
        #expect(model.entityVersionHashesByName == before)
    }
}
