import Foundation
import PostgreSQLScratchServer
import Testing

@testable import ManagedObjectCodegenCore

/// The names `SwiftMangler` computes for `@NSManaged` accessors equal the symbols the compiler
/// leaves undefined for them: a probe module declares every supported property type (optional,
/// implicitly unwrapped and not, module-local classes, sets, arrays, nested classes) and every
/// to-many accessor method Xcode generates, is compiled with `swiftc`, and its undefined symbols
/// are read with `nm`.
@Suite struct MangledNameTests {
    static let module = "ShopProbe"

    struct Property {
        let owner: [String]
        let name: String
        let type: SwiftType
        var access = ""
    }

    struct Method {
        let owner: [String]
        let name: String
        let parameters: [(label: String?, type: SwiftType)]
        var access = ""

        var source: String {
            let list = parameters.enumerated().map { index, parameter in
                "\(parameter.label ?? "_") p\(index): \(parameter.type.source)"
            }
            return "@NSManaged \(access)func \(name)(\(list.joined(separator: ", ")))"
        }
    }

    /// Private declarations' names carry the probe file's discriminator.
    static let probeFile = "Probe.swift"

    static let tag = SwiftType.localClass("Tag", in: module)
    static let item = SwiftType.localClass("ShoppingItem", in: module)
    static let nested = SwiftType.localClass("ShoppingItem.Detail", in: module)

    /// Every attribute type Xcode generates, optional and not, and relationships.
    static let properties: [Property] = {
        let scalars: [(String, SwiftType)] = [
            ("name", .string), ("count", .int64), ("small", .int16), ("middle", .int32), ("done", .bool), ("ratio", .double),
            ("weight", .float), ("index", .int), ("createdAt", .date), ("photo", .data), ("identifier", .uuid), ("link", .url),
            ("amount", .decimal), ("number", .nsNumber), ("price", .nsDecimalNumber), ("object", .nsObject),
        ]
        var list: [Property] = []
        for (name, type) in scalars {
            list.append(Property(owner: ["ShoppingItem"], name: name, type: type))
            list.append(Property(owner: ["ShoppingItem"], name: name + "Optional", type: type.optional))
            list.append(Property(owner: ["ShoppingItem"], name: name + "Unwrapped", type: .optional(type, implicitlyUnwrapped: true)))
        }
        list += [
            Property(owner: ["ShoppingItem"], name: "tag", type: tag.optional),
            Property(owner: ["ShoppingItem"], name: "parent", type: item.optional),
            Property(owner: ["ShoppingItem"], name: "tags", type: .nsSet.optional),
            Property(owner: ["ShoppingItem"], name: "orderedTags", type: .nsOrderedSet.optional),
            Property(owner: ["ShoppingItem"], name: "typedTags", type: .set(tag)),
            Property(owner: ["ShoppingItem"], name: "children", type: .set(item).optional),
            Property(owner: ["ShoppingItem"], name: "tagList", type: .array(tag)),
            Property(owner: ["ShoppingItem"], name: "shoppingItemName", type: .string.optional),
            Property(owner: ["ShoppingItem"], name: "itemShopping", type: .localClass("Item", in: module).optional),
            Property(owner: ["ShoppingItem"], name: "primitiveUpdatedAt", type: .date),
            Property(owner: ["ShoppingItem"], name: "_under_score", type: .int),
            Property(owner: ["ShoppingItem"], name: "URLValue", type: .url.optional),
            Property(owner: ["ShoppingItem"], name: "detail", type: nested.optional),
            Property(owner: ["ShoppingItem", "Detail"], name: "owner", type: item.optional),
            Property(owner: ["ShoppingItem", "Detail"], name: "detail", type: nested.optional),
            Property(owner: ["Tag"], name: "items", type: .set(item)),
            Property(owner: ["Tag"], name: "tagName", type: .string),
            Property(owner: ["Tag"], name: "Tag", type: .int),
            Property(owner: ["Tag"], name: "at", type: .nsSet.optional),
            Property(owner: ["ShoppingItem"], name: "secret", type: .string.optional, access: "private "),
            Property(owner: ["ShoppingItem"], name: "primitiveUpdated", type: .date, access: "fileprivate "),
            Property(owner: ["ShoppingItem", "Detail"], name: "hidden", type: tag.optional, access: "private "),
        ]
        return list
    }()

    /// The accessors Xcode generates for a to-many relationship, unordered and ordered.
    static let methods: [Method] = [
        Method(owner: ["ShoppingItem"], name: "addToTags", parameters: [(nil, tag)]),
        Method(owner: ["ShoppingItem"], name: "removeFromTags", parameters: [(nil, tag)]),
        Method(owner: ["ShoppingItem"], name: "addToTags", parameters: [(nil, .nsSet)]),
        Method(owner: ["ShoppingItem"], name: "removeFromTags", parameters: [(nil, .nsSet)]),
        Method(owner: ["ShoppingItem"], name: "insertIntoOrderedTags", parameters: [(nil, tag), ("at", .int)]),
        Method(owner: ["ShoppingItem"], name: "removeFromOrderedTags", parameters: [("at", .int)]),
        Method(owner: ["ShoppingItem"], name: "insertIntoOrderedTags", parameters: [(nil, .array(tag)), ("at", .nsIndexSet)]),
        Method(owner: ["ShoppingItem"], name: "removeFromOrderedTags", parameters: [("at", .nsIndexSet)]),
        Method(owner: ["ShoppingItem"], name: "replaceOrderedTags", parameters: [("at", .int), ("with", tag)]),
        Method(owner: ["ShoppingItem"], name: "replaceOrderedTags", parameters: [("at", .nsIndexSet), ("with", .array(tag))]),
        Method(owner: ["ShoppingItem"], name: "addToOrderedTags", parameters: [(nil, tag)]),
        Method(owner: ["ShoppingItem"], name: "addToOrderedTags", parameters: [(nil, .nsOrderedSet)]),
        Method(owner: ["ShoppingItem"], name: "addToShoppingItems", parameters: [(nil, item)]),
        Method(owner: ["ShoppingItem"], name: "twoTags", parameters: [(nil, tag), (nil, tag)]),
        Method(owner: ["ShoppingItem"], name: "mixed", parameters: [(nil, .date), (nil, .date.optional), (nil, .data), ("and", .int64), ("again", .int64)]),
        Method(owner: ["ShoppingItem"], name: "sets", parameters: [(nil, .set(tag)), (nil, .set(tag).optional), (nil, .nsSet), (nil, .nsOrderedSet)]),
        Method(owner: ["ShoppingItem", "Detail"], name: "addToTags", parameters: [(nil, tag)]),
        // Repeated identifiers: labels, a label equal to the method's or the class's name.
        Method(owner: ["Tag"], name: "g", parameters: [("at", tag), ("at", tag), ("with", .int), ("at", .nsSet)]),
        Method(owner: ["Tag"], name: "f", parameters: [("name", .int), ("Tag", .int), ("f", tag)]),
        Method(owner: ["ShoppingItem"], name: "addToSecretTags", parameters: [(nil, tag)], access: "private "),
    ]

    /// The probe's source: the classes with their `@NSManaged` declarations.
    static var probeSource: String {
        func members(_ owner: [String]) -> String {
            (properties.filter { $0.owner == owner }.map { "@NSManaged \($0.access)var \($0.name): \($0.type.source)" }
                + methods.filter { $0.owner == owner }.map(\.source)).map { "    " + $0 }.joined(separator: "\n")
        }
        return """
            import Foundation
            class Base: NSObject {}
            class Item: Base {}
            class Tag: Base {
            \(members(["Tag"]))
            }
            class ShoppingItem: Base {
            \(members(["ShoppingItem"]))
                class Detail: Base {
            \(members(["ShoppingItem", "Detail"]))
                }
            }
            """
    }

    /// The symbols of `module` the compiled probe references without defining.
    static func compilerSymbols() throws -> Set<String> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("MangledNameTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent(probeFile)
        try Data(probeSource.utf8).write(to: source)
        let object = folder.appendingPathComponent("Probe.o")
        let compile = try run("swiftc", ["-parse-as-library", "-module-name", module, "-c", source.path, "-o", object.path])
        #expect(compile.status == 0, "\(compile.output)")
        let symbols = try run("nm", ["-u", object.path])
        return Set(symbols.output.split(whereSeparator: \.isWhitespace).map(String.init).filter { $0.hasPrefix("$s\(module.count)\(module)") })
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("MangledNameTests-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let status = try SpawnedProgram.start(["/usr/bin/env", tool] + arguments, stdout: log).wait()
        return (status, String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self))
    }

    @Test func everyNameEqualsTheCompilers() throws {
        let compiled = try Self.compilerSymbols()
        var computed: [String: String] = [:]
        for property in Self.properties {
            for setter in [false, true] {
                let name = try SwiftMangler.accessor(
                    module: Self.module, classes: property.owner, property: property.name, type: property.type, setter: setter,
                    privateIn: property.access.isEmpty ? nil : Self.probeFile)
                computed[name] = "\(property.owner.joined(separator: ".")).\(property.name) \(setter ? "setter" : "getter")"
            }
        }
        for method in Self.methods {
            let name = try SwiftMangler.method(
                module: Self.module, classes: method.owner, name: method.name, parameters: method.parameters,
                privateIn: method.access.isEmpty ? nil : Self.probeFile)
            computed[name] = method.source
        }
        #expect(compiled.count == Self.properties.count * 2 + Self.methods.count)
        let wrong = computed.filter { !compiled.contains($0.key) }
        #expect(wrong.isEmpty, "computed but not the compiler's: \(wrong.sorted { $0.key < $1.key }.map { "\($0.value): \($0.key)" }.joined(separator: "\n"))\nthe compiler's: \(compiled.subtracting(computed.keys).sorted().joined(separator: "\n"))")
    }

    @Test func namesThatAreNotASCIIAreRefused() {
        #expect(throws: SwiftMangler.Unsupported.self) {
            try SwiftMangler.accessor(module: Self.module, classes: ["Item"], property: "prix€", type: .string, setter: false)
        }
    }
}
