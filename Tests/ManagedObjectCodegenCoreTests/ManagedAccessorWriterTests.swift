import Foundation
import PostgreSQLScratchServer
import Testing

@testable import ManagedObjectCodegenCore

/// What the plugin's tool does with a target's sources: writes accessors for every supported
/// `@NSManaged` declaration, and stops the build at the place of one it cannot handle, with a
/// compiler-style `file:line:column: error:` line, rather than leave a link error.
@Suite struct ManagedAccessorWriterTests {
    /// The built `managed-object-codegen` tool, beside the test bundle.
    static func tool() throws -> URL {
        var folder = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        for _ in 0..<5 {
            folder = folder.deletingLastPathComponent()
            let candidate = folder.appendingPathComponent("managed-object-codegen")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CocoaError(.fileNoSuchFile)
    }

    /// Runs the tool on `source` as the file `Models.swift` of module `App`, with `model` as the
    /// `contents` of a model `Shop.xcdatamodel` and `others` as more source files.
    static func generate(_ source: String, model: String? = nil, others: [String] = []) throws -> (status: Int32, errors: String, output: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("Codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Models.swift")
        try Data(source.utf8).write(to: file)
        let output = folder.appendingPathComponent("ManagedAccessors.swift")
        var arguments = [try tool().path, "--module", "App", "--output", output.path, file.path]
        for (index, text) in others.enumerated() {
            let other = folder.appendingPathComponent("Other\(index).swift")
            try Data(text.utf8).write(to: other)
            arguments.append(other.path)
        }
        if let model {
            let modelFolder = folder.appendingPathComponent("Shop.xcdatamodel")
            try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
            try Data(model.utf8).write(to: modelFolder.appendingPathComponent("contents"))
            arguments += ["--model", modelFolder.path]
        }
        let errors = folder.appendingPathComponent("errors").path
        let status = try SpawnedProgram.start(arguments, stdout: folder.appendingPathComponent("output").path, stderr: errors).wait()
        let text = String(decoding: FileManager.default.contents(atPath: errors) ?? Data(), as: UTF8.self)
        let generated = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return (status, text.replacingOccurrences(of: file.path, with: "Models.swift"), generated)
    }

    @Test func supportedDeclarationsGetAccessorsUnderTheCompilersSymbols() throws {
        let result = try Self.generate("""
            import OpenCoreData
            class Tag: NSManagedObject {}
            public class Item: NSManagedObject {
                @NSManaged public var name: String?
                @NSManaged var tags: Set<Tag>
                @NSManaged var ordered: NSOrderedSet?
                @NSManaged var primitiveName: String?
                @NSManaged private var secret: String?
                @NSManaged func addToTags(_ value: Tag)
                @NSManaged func insertIntoOrdered(_ value: Tag, at idx: Int)
                @NSManaged func replaceOrdered(at idx: Int, with value: Tag)
            }
            """)
        #expect(result.status == 0, "\(result.errors)")
        let expected = [
            "public var __managed_name: String?",
            try SwiftMangler.accessor(module: "App", classes: ["Item"], property: "name", type: .string.optional, setter: false),
            try SwiftMangler.accessor(module: "App", classes: ["Item"], property: "tags", type: .set(.localClass("Tag", in: "App")), setter: true),
            #"_managedPrimitiveValue(slot: -1, key: "name", as: (String?).self)"#,
            #"_addManagedObjects(value, toKey: "tags")"#,
            try SwiftMangler.accessor(module: "App", classes: ["Item"], property: "secret", type: .string.optional, setter: false, privateIn: "Models.swift"),
        ]
        for text in expected { #expect(result.output.contains(text), "missing \(text) in\n\(result.output)") }
        #expect(result.output.contains(#"_insertManagedObjects(value, at: idx, intoKey: "ordered")"#))
        #expect(result.output.contains(#"_replaceManagedObjects(at: idx, with: value, inKey: "ordered")"#))
    }

    @Test func accessorsOfAModelsClassesPassTheSlotTheEntityHasThePropertyIn() throws {
        let location = SourceLocation(file: "Shop.xcdatamodel/contents", line: 1, column: 1)
        let attribute = { (name: String) in ModelClassWriter.Attribute(name: name, type: "String", usesScalarValueType: false, customClassName: nil) }
        let entities = [
            ModelClassWriter.Entity(
                name: "Item", className: "Item", parentClassName: nil, codeGeneration: .classDefinition,
                attributes: [attribute("title"), attribute("note")], relationships: [], propertyNames: ["title", "note"], location: location),
            ModelClassWriter.Entity(
                name: "Book", className: "Book", parentClassName: "Item", codeGeneration: .classDefinition,
                attributes: [attribute("isbn")], relationships: [], location: location),
        ]
        let slots = ModelClassWriter.slotNames(of: entities)
        #expect(slots == ["Item": ["title", "note"], "Book": ["title", "note", "isbn"]])
        let property = { (owner: String, name: String) in
            ManagedProperty(location: location, owner: [owner], name: name, type: .string.optional, isPublic: false)
        }
        let text = try ManagedAccessorWriter.source(
            module: "App", properties: [property("Book", "isbn"), property("Item", "note"), property("Book", "primitiveNote"), property("Item", "other")],
            methods: [], slots: slots)
        #expect(text.contains(#"_managedValue(slot: 2, key: "isbn", as: (String?).self)"#))
        #expect(text.contains(#"_setManagedValue(newValue, slot: 1, key: "note")"#))
        #expect(text.contains(#"_managedPrimitiveValue(slot: 1, key: "note", as: (String?).self)"#))
        // Not in the model: the runtime looks it up by name.
        #expect(text.contains(#"_managedValue(slot: -1, key: "other", as: (String?).self)"#))
    }

    /// A setter less public than its getter (`public private(set)`) is supplied as an internal
    /// one: a public definition of the symbol the declaring file knows as hidden fails a debug
    /// build ("function has wrong linkage").
    @Test func aSetterLessPublicThanItsGetterIsSuppliedInternal() throws {
        let location = SourceLocation(file: "Ledger.swift", line: 1, column: 1)
        let limited = ManagedProperty(location: location, owner: ["Ledger"], name: "uid", type: .string.optional, isPublic: true, setterIsPublic: false)
        let open = ManagedProperty(location: location, owner: ["Ledger"], name: "title", type: .string.optional, isPublic: true)
        let text = try ManagedAccessorWriter.source(module: "App", properties: [limited, open], methods: [])
        #expect(text.contains("public internal(set) var __managed_uid: String?"), "\(text)")
        #expect(text.contains("public var __managed_title: String?"), "\(text)")
    }

    /// A Transformable attribute's property has the type of its custom class: a class of the
    /// module (declared in any of its files), a Foundation class, an array; one the module cannot
    /// name stops the build at the model.
    @Test func transformableAttributesAreTypedByTheirCustomClass() throws {
        func model(_ customClass: String) -> String {
            """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Shelf" representedClassName="Shelf" codeGenerationType="class">
                    <attribute name="colors" optional="YES" attributeType="Transformable" customClassName="\(customClass)"/>
                    <attribute name="names" optional="YES" attributeType="Transformable" customClassName="[String]"/>
                    <attribute name="info" optional="YES" attributeType="Transformable" customClassName="NSDictionary"/>
                </entity>
            </model>
            """
        }
        let palette = "import Foundation\nfinal class Palette: NSObject {}\n"
        let result = try Self.generate("import OpenCoreData\n", model: model("$(PRODUCT_MODULE_NAME).Palette"), others: [palette])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("@NSManaged public var colors: Palette?"))
        #expect(result.output.contains("@NSManaged public var names: [String]?"))
        #expect(result.output.contains("@NSManaged public var info: NSDictionary?"))
        let unknown = try Self.generate("import OpenCoreData\n", model: model("UIColor"), others: [palette])
        #expect(unknown.status == 1)
        #expect(unknown.errors.contains("the custom class 'UIColor' of Transformable attribute 'colors' of entity 'Shelf'"), "\(unknown.errors)")
    }

    /// Hand-written hierarchies under `NSManagedObject` that the target declares whole, in a
    /// target that never mentions `validateValue`, are declared free of overrides of it, each
    /// root listing itself and its subclasses; no other class is.
    @Test func classesNoSourceCanOverrideValidateValueInAreDeclaredFreeOfIt() throws {
        let models = """
            import OpenCoreData
            final class User: NSManagedObject {
                @NSManaged var name: String?
            }
            class Base: NSManagedObject {}
            class Derived: Base {}
            final class Leaf: Derived {}
            open class Shared: NSManagedObject {}
            private final class Hidden: NSManagedObject {}
            enum Catalog {
                final class Entry: NSManagedObject {}
            }
            struct Box<Value> {
                final class Inside: NSManagedObject {}
            }
            private extension Catalog {
                final class Extended: NSManagedObject {}
            }
            #if os(Linux)
            final class Conditional: NSManagedObject {}
            #endif
            func make() {
                final class Local: NSManagedObject {}
            }
            """
        // Xcode's "Manual/None" layout: the class in a file of its own, without `@NSManaged`.
        let classFile = "import OpenCoreData\npublic class Item: NSManagedObject {}\n"
        let free = try Self.generate(models, others: [classFile, "struct Unrelated {}\n"])
        #expect(free.status == 0, "\(free.errors)")
        let declared = free.output.split(separator: "\n").filter { $0.hasSuffix(": _ValidateValueNotOverridden {") }
        #expect(
            declared == [
                "extension Base: _ValidateValueNotOverridden {", "extension Catalog.Entry: _ValidateValueNotOverridden {",
                "extension Item: _ValidateValueNotOverridden {", "extension Shared: _ValidateValueNotOverridden {",
                "extension User: _ValidateValueNotOverridden {",
            ])
        #expect(
            free.output.contains(
                "_classesWithoutValidateValueOverride: [ObjectIdentifier] = [ObjectIdentifier(Base.self), ObjectIdentifier(Derived.self), ObjectIdentifier(Leaf.self)]"
            ), "\(free.output)")
        // Any mention in any file of the target (here a comment) keeps every class asking.
        let mentioned = try Self.generate(models, others: [classFile, "// Book overrides validateValue(_:forKey:) in the app.\n"])
        #expect(mentioned.status == 0, "\(mentioned.errors)")
        #expect(!mentioned.output.contains("_ValidateValueNotOverridden"))
    }

    @Test(arguments: [
        ("    @NSManaged var counts: [String: Int]", "the type '[String: Int]' of an @NSManaged declaration is not supported"),
        ("    @NSManaged var handler: (Int) -> Void", "the type '(Int) -> Void' of an @NSManaged declaration is not supported"),
        ("    @NSManaged func refresh()", "@NSManaged func 'refresh' is not one of the to-many accessors"),
        ("    @NSManaged func count() -> Int", "@NSManaged func 'count' must return nothing"),
        ("    @NSManaged static var shared: Item?", "@NSManaged applies to instance members only"),
    ])
    func anUnsupportedDeclarationStopsTheBuildAtItsPlace(line: String, message: String) throws {
        let result = try Self.generate("""
            import OpenCoreData
            class Item: NSManagedObject {
                @NSManaged var name: String?
            \(line)
            }
            """)
        #expect(result.status == 1)
        #expect(result.errors.contains("Models.swift:4:5: error: \(message)"), "\(result.errors)")
    }
}
