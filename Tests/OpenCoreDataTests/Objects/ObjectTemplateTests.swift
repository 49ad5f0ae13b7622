import Foundation
import Testing
@testable import OpenCoreData

/// KVC finds a key's property by comparing the key's in-memory words first; keys whose words
/// differ from the name's (a long name read from a file, a key built at run time) must still be
/// found, and duplicate names keep `propertiesByName`'s choice of the last.
@Suite struct ObjectTemplateTests {
    /// A long name (too long to be stored inline), built at run time so its storage is its own.
    private let longName = ["aPropertyName", "LongerThan", "FifteenBytes"].joined()

    private func template(_ names: [String]) -> ObjectTemplate {
        ObjectTemplate(properties: names.map { TestModels.attribute($0, .stringAttributeType) })
    }

    @Test func keysAreFoundWhateverTheirStringsLookLike() {
        let template = template(["name", longName, "done"])
        #expect(template.scannedSlot(of: "name") == 0)
        #expect(template.scannedSlot(of: String(["n", "a", "m", "e"])) == 0)
        #expect(template.scannedSlot(of: "aPropertyNameLongerThanFifteenBytes") == 1)
        #expect(template.scannedSlot(of: String("x" + longName).dropFirst().description) == 1)
        #expect(template.scannedSlot(of: "done") == 2)
        #expect(template.scannedSlot(of: "nam") == nil)
        #expect(template.scannedSlot(of: "") == nil)
    }

    /// A wide entity is scanned by words too; a key whose words differ is left to the caller's
    /// dictionary (nil), never matched to another slot.
    @Test func wideEntitiesAreScannedByWords() {
        let names = (0..<12).map { "i\($0)" } + [longName]
        let template = template(names)
        for (slot, name) in names.enumerated() { #expect(template.scannedSlot(of: name) == slot) }
        #expect(template.scannedSlot(of: String(["i", "1", "1"])) == 11, "a small string's words are its bytes")
        #expect(template.scannedSlot(of: String("x" + longName).dropFirst().description) == nil)
        #expect(template.scannedSlot(of: "i12") == nil)
    }

    @Test func theLastOfEqualNamesIsFound() {
        let template = template(["name", "done", "name"])
        #expect(template.scannedSlot(of: "name") == 2)
        #expect(template.scannedSlot(of: String(["n", "a", "m", "e"])) == 2)
    }

    @Test func onlyWritableAttributesAreSetThroughTheTemplate() {
        let readOnly = TestModels.attribute("derived", .stringAttributeType)
        readOnly.isReadOnly = true
        let target = TestModels.entity("Target")
        let template = ObjectTemplate(properties: [
            TestModels.attribute("name", .stringAttributeType), readOnly,
            TestModels.relationship("target", to: target, toMany: false),
        ])
        #expect(template.settableTypes.map { $0 != nil } == [true, false, false])
    }

    @Test func aKeyWithOtherWordsSetsAndReadsItsAttribute() throws {
        let directory = TemporaryDirectory()
        let model = NSManagedObjectModel()
        model.entities = [
            TestModels.entity("Note", [TestModels.attribute(longName, .stringAttributeType), TestModels.attribute("tag", .stringAttributeType)])
        ]
        let stack = try TestStack(model: model, directory: directory)
        try stack.context.performAndWait {
            let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: stack.context)
            note.setValue("long", forKey: "aPropertyNameLongerThanFifteenBytes")
            note.setValue("short", forKey: String(["t", "a", "g"]))
            #expect(note.value(forKey: longName) as? String == "long")
            #expect(note.value(forKey: "tag") as? String == "short")
            try stack.context.save()
            stack.context.reset()
            let saved = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
            #expect(saved.map { $0.value(forKey: "aPropertyNameLongerThanFifteenBytes") as? String } == ["long"])
        }
    }
}
