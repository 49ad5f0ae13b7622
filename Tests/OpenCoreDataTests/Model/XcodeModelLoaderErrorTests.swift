import Foundation
import Testing

@testable import OpenCoreData

/// A broken model must give an error that names the file and says what is wrong, never a crash.
@Suite struct XcodeModelLoaderErrorTests {
    struct BadModel: Sendable, CustomTestStringConvertible {
        let testDescription: String
        /// The `contents` file's text; nil writes no file.
        let xml: String?
        /// Words the message must contain besides the file's path.
        let mentions: [String]
        var code: Int { xml == nil ? NSFileReadNoSuchFileError : NSFileReadCorruptFileError }
    }

    static let cases: [BadModel] = [
        BadModel(testDescription: "MissingFile", xml: nil, mentions: ["No model file"]),
        BadModel(testDescription: "NotXML", xml: "This is not a model.\n", mentions: ["malformed XML", "line"]),
        BadModel(testDescription: "EmptyFile", xml: "", mentions: []),
        BadModel(
            testDescription: "TruncatedXML",
            xml: String(ModelSource.model(#"<entity name="A"><attribute name="x" attributeType="String"/></entity>"#).dropLast(30)),
            mentions: ["malformed XML", "line"]),
        BadModel(
            testDescription: "UnknownAttributeType",
            xml: ModelSource.model(#"<entity name="A">\#n<attribute name="x" attributeType="Strin"/></entity>"#),
            mentions: ["unknown attributeType 'Strin'", "'x'", "'A'", "line 4"]),
        BadModel(
            testDescription: "UnknownDestination",
            xml: ModelSource.model(
                #"<entity name="A"><relationship name="r" maxCount="1" deletionRule="Nullify" destinationEntity="Nope"/></entity>"#),
            mentions: ["unknown destinationEntity 'Nope'", "'r'"]),
        BadModel(
            testDescription: "EntityWithoutName",
            xml: ModelSource.model(#"<entity representedClassName="A"/>"#), mentions: ["entity has no name"]),
        BadModel(
            testDescription: "AttributeWithoutName",
            xml: ModelSource.model(#"<entity name="A"><attribute attributeType="String"/></entity>"#),
            mentions: ["attribute of entity 'A' has no name"]),
        BadModel(
            testDescription: "UnknownParent",
            xml: ModelSource.model(#"<entity name="A" parentEntity="B"/>"#), mentions: ["unknown parentEntity 'B'"]),
        BadModel(
            testDescription: "InheritanceCycle",
            xml: ModelSource.model(#"<entity name="A" parentEntity="B"/><entity name="B" parentEntity="A"/>"#),
            mentions: ["inherits from itself"]),
        BadModel(
            testDescription: "UnknownInverse",
            xml: ModelSource.model(
                #"<entity name="A"><relationship name="r" maxCount="1" destinationEntity="A" inverseName="back"/></entity>"#),
            mentions: ["inverse 'back'"]),
        BadModel(
            testDescription: "UnknownDeletionRule",
            xml: ModelSource.model(
                #"<entity name="A"><relationship name="r" maxCount="1" deletionRule="Explode" destinationEntity="A"/></entity>"#),
            mentions: ["deletionRule 'Explode'"]),
        BadModel(
            testDescription: "BadMaxCount",
            xml: ModelSource.model(
                #"<entity name="A"><relationship name="r" toMany="YES" maxCount="many" destinationEntity="A"/></entity>"#),
            mentions: ["maxCount"]),
        BadModel(
            testDescription: "BadDefaultValue",
            xml: ModelSource.model(
                #"<entity name="A"><attribute name="n" attributeType="Integer 16" defaultValueString="70000"/></entity>"#),
            mentions: ["'70000'", "Integer 16"]),
        BadModel(
            testDescription: "DuplicateEntity",
            xml: ModelSource.model(#"<entity name="A"/><entity name="A"/>"#), mentions: ["two entities are named 'A'"]),
        BadModel(
            testDescription: "DuplicateInheritedProperty",
            xml: ModelSource.model(
                #"<entity name="A"><attribute name="x" attributeType="String"/></entity><entity name="B" parentEntity="A"><attribute name="x" attributeType="String"/></entity>"#),
            mentions: ["'x'", "superentity 'A'"]),
        BadModel(
            testDescription: "UnknownConstraintProperty",
            xml: ModelSource.model(
                #"<entity name="A"><uniquenessConstraints><uniquenessConstraint><constraint value="nope"/></uniquenessConstraint></uniquenessConstraints></entity>"#),
            mentions: ["'nope'"]),
        BadModel(
            testDescription: "NotAModel",
            xml: #"<?xml version="1.0"?><plist version="1.0"><dict/></plist>"#, mentions: ["<plist>"]),
    ]

    @Test(arguments: cases)
    func badModelsThrowADescriptiveError(_ bad: BadModel) throws {
        let folder = TemporaryDirectory()
        try withExtendedLifetime(folder) {
            let contents: URL
            if let xml = bad.xml {
                contents = try ModelSource.write(xml, named: bad.testDescription, in: folder)
            } else {
                contents = folder.url.appendingPathComponent("MissingFile.xcdatamodel/contents")
            }
            let error = try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: contents) }
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == bad.code)
            #expect(error.localizedDescription.contains(contents.path), "\(error.localizedDescription)")
            for word in bad.mentions {
                #expect(error.localizedDescription.contains(word), "\(error.localizedDescription)")
            }
            #expect(NSManagedObjectModel(contentsOf: contents) == nil)
        }
    }

    /// Bytes that are not UTF-8 inside a name made Linux's XMLParser trap (issue 20's 108 model
    /// crashes): they are an error naming the file, the line and the byte.
    @Test(arguments: [
        (#"<entity name="A"><attri"#, #"bute name="x" attributeType="String"/></entity>"#),
        (#"<entity na"#, #"me="A"/>"#),
        (#"<entity name="A"#, #""/>"#),
        (#"<entity name="A"/>"#, ""),
    ])
    func bytesThatAreNotUTF8AreRefused(before: String, after: String) throws {
        let folder = TemporaryDirectory()
        let bundle = folder.url.appendingPathComponent("Bytes.xcdatamodel")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let contents = bundle.appendingPathComponent("contents")
        let xml = ModelSource.model(before + "\u{1}" + after)
        var bytes = Array(xml.utf8)
        let marker = bytes.firstIndex(of: 1)!
        bytes[marker] = 0xC3
        try Data(bytes).write(to: contents)
        let error = try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: contents) }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("not UTF-8"), "\(error.localizedDescription)")
        #expect(error.localizedDescription.contains("byte \(marker)"), "\(error.localizedDescription)")
        #expect(NSManagedObjectModel(contentsOf: contents) == nil)
    }

    @Test func aBundleWithSeveralVersionsAndNoCurrentVersionIsRefused() throws {
        let folder = TemporaryDirectory()
        try withExtendedLifetime(folder) {
            let bundle = folder.url.appendingPathComponent("Two.xcdatamodeld")
            for version in ["One", "Two"] {
                let model = bundle.appendingPathComponent(version + ".xcdatamodel")
                try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
                try Data(ModelSource.model(#"<entity name="A"/>"#).utf8).write(to: model.appendingPathComponent("contents"))
            }
            let error = try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: bundle) }
            #expect(error.code == NSFileReadCorruptFileError)
            #expect(error.localizedDescription.contains("Two.xcdatamodeld"))
            #expect(error.localizedDescription.contains(".xccurrentversion"))
            #expect(try NSManagedObjectModel(contentsOf: bundle, versionName: "Two").entities.count == 1)
        }
    }

    @Test func aCurrentVersionFileThatIsNotAPropertyListIsRefused() throws {
        let folder = TemporaryDirectory()
        try withExtendedLifetime(folder) {
            let bundle = folder.url.appendingPathComponent("Bad.xcdatamodeld")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            try Data("garbage".utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
            let error = try #require(throws: NSError.self) { try NSManagedObjectModel(validatingContentsOf: bundle) }
            #expect(error.code == NSFileReadCorruptFileError)
            #expect(error.localizedDescription.contains(".xccurrentversion"))
        }
    }
}
