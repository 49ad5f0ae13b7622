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

    /// A composite that lists itself among its elements is a damaged archive, not a recursion
    /// without end.
    @Test func aCompositeContainingItselfIsRefused() throws {
        var writer = KeyedArchiveWriter()
        let model = writer.reserve()
        let entity = writer.reserve()
        let composite = writer.reserve()
        let loop = writer.string("loop")
        let name = writer.string("E")
        let elements = writer.array([composite])
        let properties = writer.dictionary(keys: [loop], values: [composite])
        let entities = writer.dictionary(keys: [name], values: [entity])
        writer.fill(
            composite, ["NSCompositeAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject"],
            [("NSPropertyName", .reference(loop)), ("NSAttributeType", .integer(2100)), ("NSElements", .reference(elements))])
        writer.fill(entity, ["NSEntityDescription", "NSObject"], [("NSEntityName", .reference(name)), ("NSProperties", .reference(properties))])
        writer.fill(model, ["NSManagedObjectModel", "NSObject"], [("NSEntities", .reference(entities))])
        #expect(throws: CompiledModelReader.Failure.self) { try CompiledModelReader.read(writer.data(root: model)) }
    }

    /// An archive that lists one object twice at each of 64 levels describes 2^64 objects: it
    /// reads as nothing, at once, rather than for ever.
    @Test func anArchiveOfExponentialSizeReadsAsNothing() throws {
        var values = KeyedArchiveWriter()
        var level = values.string("x")
        for _ in 0..<60 { level = values.array([level, level]) }
        #expect(KeyedArchiveReader.object(from: values.data(root: level)) == nil)

        var expressions = KeyedArchiveWriter()
        let one = expressions.expression(NSExpression(forConstantValue: 1))
        var expression = try #require(one)
        for _ in 0..<60 {
            let pair = expressions.array([expression, expression])
            expression = expressions.instance(
                ["NSAggregateExpression", "NSExpression", "NSObject"], [("NSExpressionType", .integer(14)), ("NSCollection", .reference(pair))])
        }
        let archive = try #require(KeyedArchive(expressions.data(root: expression)))
        #expect(throws: ArchivedExpressionReader.Failure.self) { try ArchivedExpressionReader(archive: archive).expression(expression) }
    }
}
