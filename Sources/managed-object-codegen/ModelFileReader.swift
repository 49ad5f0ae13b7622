import Foundation
import ManagedObjectCodegenCore

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the entities of an Xcode model (`.xcdatamodeld`: its current version; `.xcdatamodel`)
/// for code generation.
enum ModelFileReader {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The `contents` file of the model at `path`.
    static func contentsFile(_ path: String) throws -> String {
        let url = URL(fileURLWithPath: path)
        guard url.pathExtension == "xcdatamodeld" else { return url.appendingPathComponent("contents").path }
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".xcdatamodel") }.sorted()
        var chosen = versions.count == 1 ? versions[0] : nil
        let current = url.appendingPathComponent(".xccurrentversion")
        if let data = try? Data(contentsOf: current),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let name = plist["_XCCurrentVersionName"] as? String
        {
            chosen = name
        }
        guard let chosen else { throw Failure(description: "\(path): error: the model has several versions and no .xccurrentversion") }
        return url.appendingPathComponent(chosen).appendingPathComponent("contents").path
    }

    static func entities(inModelAt path: String) throws -> [ModelClassWriter.Entity] {
        let file = try contentsFile(path)
        guard let data = FileManager.default.contents(atPath: file) else {
            throw Failure(description: "\(file): error: can't read the model")
        }
        // Linux's XMLParser stops the program on bytes that are not UTF-8 in a name.
        guard String(data: data, encoding: .utf8) != nil else { throw Failure(description: "\(file): error: the model is not UTF-8 text") }
        let parser = XMLParser(data: data)
        let collector = Collector(file: file)
        parser.delegate = collector
        guard parser.parse() else {
            throw Failure(description: "\(file):\(parser.lineNumber): error: the model is not well-formed XML")
        }
        let classNames = Dictionary(collector.entities.map { ($0.name, $0.className) }, uniquingKeysWith: { a, _ in a })
        return try collector.entities.map { raw in
            let location = ManagedObjectCodegenCore.SourceLocation(file: file, line: raw.line, column: 1)
            let relationships = try raw.relationships.map { relationship in
                guard let destination = classNames[relationship.destination] else {
                    throw Failure(description: "\(location): error: relationship '\(relationship.name)' names an unknown entity '\(relationship.destination)'")
                }
                return ModelClassWriter.Relationship(
                    name: relationship.name, destinationClassName: destination, isToMany: relationship.isToMany, isOrdered: relationship.isOrdered)
            }
            return ModelClassWriter.Entity(
                name: raw.name, className: raw.className, parentClassName: raw.parent.flatMap { classNames[$0] },
                codeGeneration: raw.codeGeneration, attributes: raw.attributes, relationships: relationships,
                propertyNames: raw.propertyNames, location: location)
        }
    }

    private struct RawEntity {
        let name: String
        let className: String
        let parent: String?
        let codeGeneration: ModelClassWriter.Entity.CodeGeneration
        let line: Int
        var attributes: [ModelClassWriter.Attribute] = []
        var relationships: [(name: String, destination: String, isToMany: Bool, isOrdered: Bool)] = []
        var propertyNames: [String] = []
    }

    private final class Collector: NSObject, XMLParserDelegate {
        let file: String
        var entities: [RawEntity] = []
        private var inEntity = false
        private var depth = 0

        init(file: String) { self.file = file }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
            attributes: [String: String] = [:]
        ) {
            depth += 1
            switch elementName {
            case "entity" where depth == 2:
                let name = attributes["name"] ?? ""
                // `$(PRODUCT_MODULE_NAME).Item` or `App.Item`: the class is this module's `Item`.
                let className = (attributes["representedClassName"] ?? name).split(separator: ".").last.map(String.init) ?? name
                let generation: ModelClassWriter.Entity.CodeGeneration
                switch attributes["codeGenerationType"] {
                case "class": generation = .classDefinition
                case "category": generation = .category
                default: generation = .manual
                }
                entities.append(RawEntity(
                    name: name, className: className.isEmpty ? name : className, parent: attributes["parentEntity"],
                    codeGeneration: generation, line: parser.lineNumber))
                inEntity = true
            case "attribute" where inEntity && depth == 3:
                guard let name = attributes["name"], let type = attributes["attributeType"] else { return }
                entities[entities.count - 1].propertyNames.append(name)
                entities[entities.count - 1].attributes.append(.init(
                    name: name, type: type, usesScalarValueType: attributes["usesScalarValueType"] == "YES",
                    customClassName: attributes["customClassName"]))
            case "relationship" where inEntity && depth == 3:
                guard let name = attributes["name"], let destination = attributes["destinationEntity"] else { return }
                entities[entities.count - 1].propertyNames.append(name)
                entities[entities.count - 1].relationships.append(
                    (name, destination, attributes["toMany"] == "YES", attributes["ordered"] == "YES"))
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            if elementName == "entity", depth == 2 { inEntity = false }
            depth -= 1
        }
    }
}
