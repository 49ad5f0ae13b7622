import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// A transformer written as on Apple platforms: JSON for a list of strings.
final class StringListTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let list = value as? [String] else { return nil }
        return try? JSONEncoder().encode(list)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? JSONDecoder().decode([String].self, from: data)
    }
}

/// Apple's pattern for an attribute of secure-coded classes: the secure unarchiver, with the
/// classes it may find.
final class NameListTransformer: NSSecureUnarchiveFromDataTransformer {
    override class var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSString.self] }
}

extension NSValueTransformerName {
    static let stringList = NSValueTransformerName(rawValue: "StringListTransformer")
    static let nameList = NSValueTransformerName(rawValue: "NameListTransformer")
}

/// Transformable attributes through `ValueTransformer`, with Apple's names and semantics: Linux's
/// Foundation has none of these types, and real code subclasses them for every transformable
/// attribute.
@Suite struct ValueTransformerTests {
    /// A store with one entity of three transformable attributes: one naming a custom
    /// transformer, one a secure-unarchive subclass, one naming none (Core Data's default).
    func stack(in directory: TemporaryDirectory) throws -> TestStack {
        ValueTransformer.setValueTransformer(StringListTransformer(), forName: .stringList)
        ValueTransformer.setValueTransformer(NameListTransformer(), forName: .nameList)
        let custom = TestModels.attribute("custom", .transformableAttributeType)
        custom.valueTransformerName = NSValueTransformerName.stringList.rawValue
        let secure = TestModels.attribute("secure", .transformableAttributeType)
        secure.valueTransformerName = NSValueTransformerName.nameList.rawValue
        let plain = TestModels.attribute("plain", .transformableAttributeType)
        let model = NSManagedObjectModel()
        model.entities = [TestModels.entity("Note", [custom, secure, plain])]
        return try TestStack(model: model, directory: directory)
    }

    @Test func valuesRoundTripThroughTheirTransformers() throws {
        let directory = TemporaryDirectory()
        let stack = try stack(in: directory)
        try stack.context.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: stack.context)
            note.setValue(["milk", "eggs"], forKey: "custom")
            note.setValue(NSArray(array: [NSString(string: "ann"), NSString(string: "bob")]), forKey: "secure")
            note.setValue(NSDictionary(dictionary: ["count": NSNumber(value: 3)]), forKey: "plain")
            try stack.context.save()
        }
        let reopened = try stack.reopened()
        try reopened.context.performAndWait {
            let note = try #require(try reopened.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first)
            #expect(note.value(forKey: "custom") as? [String] == ["milk", "eggs"])
            #expect((note.value(forKey: "secure") as? NSArray)?.compactMap { ($0 as? NSString).map(String.init) } == ["ann", "bob"])
            #expect(((note.value(forKey: "plain") as? NSDictionary)?["count"] as? NSNumber)?.intValue == 3)
        }
        // The custom transformer wrote JSON; the others keyed archives, as Apple's Core Data does.
        let raw = try DatabaseQueue(path: stack.url.path).read { db in
            try Row.fetchOne(db, sql: "SELECT ZCUSTOM, ZSECURE, ZPLAIN FROM ZNOTE")!
        }
        #expect(String(decoding: raw["ZCUSTOM"] as Data, as: UTF8.self) == #"["milk","eggs"]"#)
        #expect((raw["ZSECURE"] as Data).starts(with: Data("bplist00".utf8)))
        #expect((raw["ZPLAIN"] as Data).starts(with: Data("bplist00".utf8)))
    }

    @Test func theSecureUnarchiverRefusesClassesItDoesNotAllow() throws {
        let archive = try NSKeyedArchiver.archivedData(
            withRootObject: NSDictionary(dictionary: ["a": NSNumber(value: 1)]), requiringSecureCoding: true)
        #expect(NameListTransformer().transformedValue(archive) == nil)
        #expect(NSSecureUnarchiveFromDataTransformer().transformedValue(archive) is NSDictionary)
    }

    /// Linux's unarchiver stops the program on a class it was not allowed or cannot find; an
    /// Apple store holds archives of classes that exist only in the app that wrote it.
    @Test func archivesOfUnknownOrDisallowedClassesReadAsTheirData() throws {
        let archive = try NSKeyedArchiver.archivedData(
            withRootObject: NSDictionary(dictionary: ["a": NSNumber(value: 1)]), requiringSecureCoding: true)
        var plist = try #require(try PropertyListSerialization.propertyList(from: archive, format: nil) as? [String: Any])
        var objects = try #require(plist["$objects"] as? [Any])
        for (index, object) in objects.enumerated() {
            guard var entry = object as? [String: Any], entry["$classname"] != nil else { continue }
            entry["$classname"] = "Cover"
            entry["$classes"] = ["Cover", "NSObject"]
            objects[index] = entry
        }
        plist["$objects"] = objects
        let foreign = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let attribute = TestModels.attribute("cover", .transformableAttributeType)
        for data in [foreign, archive.prefix(archive.count / 2), Data("not an archive".utf8)] {
            #expect(ValueTransformerRegistry.decode(data, attribute: attribute) as? Data == data)
            #expect(ValueTransformer.valueTransformer(forName: .keyedUnarchiveFromDataTransformerName)?.transformedValue(data) == nil)
        }
    }

    @Test func foundationsBuiltInTransformersAreRegistered() throws {
        let names = ValueTransformer.valueTransformerNames()
        for name in [NSValueTransformerName.negateBooleanTransformerName, .isNilTransformerName, .isNotNilTransformerName,
                     .unarchiveFromDataTransformerName, .keyedUnarchiveFromDataTransformerName, .secureUnarchiveFromDataTransformerName] {
            #expect(names.contains(name), "\(name.rawValue)")
        }
        let negate = try #require(ValueTransformer.valueTransformer(forName: .negateBooleanTransformerName))
        #expect((negate.transformedValue(true) as? NSNumber)?.boolValue == false)
        #expect((negate.reverseTransformedValue(false) as? NSNumber)?.boolValue == true)
        let isNil = try #require(ValueTransformer.valueTransformer(forName: .isNilTransformerName))
        #expect((isNil.transformedValue(nil) as? NSNumber)?.boolValue == true)
        #expect(isNil.reverseTransformedValue(true) == nil)
        ValueTransformer.setValueTransformer(StringListTransformer(), forName: "Temporary")
        #expect(ValueTransformer.valueTransformer(forName: "Temporary") is StringListTransformer)
        ValueTransformer.setValueTransformer(nil, forName: "Temporary")
        #expect(ValueTransformer.valueTransformer(forName: "Temporary") == nil)
    }
}
