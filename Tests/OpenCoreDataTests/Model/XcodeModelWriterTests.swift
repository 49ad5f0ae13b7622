import Foundation
import Testing

@testable import OpenCoreData

/// A model written as an Xcode model loads back as the same model: the same version hashes, and
/// what the hashes leave out (derivations, fetched properties, composites, defaults, bounds,
/// user info, indexes, constraints, configurations).
@Suite struct XcodeModelWriterTests {
    @Test(arguments: ModelCacheWriterTests.Source.allCases)
    func aWrittenModelLoadsAsTheSameModel(_ source: ModelCacheWriterTests.Source) throws {
        let directory = TemporaryDirectory()
        let model = try source.model()
        let folder = directory.file("Written.xcdatamodel")
        try XcodeModelWriter.write(model, to: folder)
        let loaded = try NSManagedObjectModel(validatingContentsOf: folder)
        #expect(loaded.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(ModelCacheWriterTests.summary(of: loaded) == ModelCacheWriterTests.summary(of: model))
        #expect(loaded.configurations == model.configurations)
    }

    /// Names and values with XML's special characters are escaped; a character XML cannot carry
    /// at all is refused, and nothing is written.
    @Test func specialCharactersAreEscapedAndImpossibleOnesRefused() throws {
        let directory = TemporaryDirectory()
        let entity = NSEntityDescription()
        entity.name = "Note"
        let title = NSAttributeDescription()
        title.name = "title"
        title.attributeType = .stringAttributeType
        title.defaultValue = "<a href=\"x\">&'\n\ttab"
        title.userInfo = ["key <&>": "value \"quoted\""]
        entity.properties = [title]
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let folder = directory.file("Special.xcdatamodel")
        try XcodeModelWriter.write(model, to: folder)
        let loaded = try NSManagedObjectModel(validatingContentsOf: folder)
        let attribute = try #require(loaded.entitiesByName["Note"]?.attributesByName["title"])
        #expect(attribute.defaultValue as? String == "<a href=\"x\">&'\n\ttab")
        #expect(attribute.userInfo?["key <&>"] as? String == "value \"quoted\"")

        title.defaultValue = "bell \u{7}"
        let refused = directory.file("Refused.xcdatamodel")
        #expect(throws: XcodeModelWriter.Failure.self) { try XcodeModelWriter.write(model, to: refused) }
        #expect(!FileManager.default.fileExists(atPath: refused.path))
    }
}
