import ArgumentParser
import OpenCoreData

/// `entities STORE`: each entity with its object count, attributes, relationships with their
/// inverses, and uniqueness constraints.
struct Entities: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the store's entities, their counts and properties.")

    @OptionGroup var store: StoreArgument
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let inspected = try InspectedStore(path: store.store)
        let described = try inspected.context.performAndWait {
            try inspected.model.entities.sorted { $0.name! < $1.name! }.map { entity in
                try Self.describe(entity, count: inspected.context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity.name!)))
            }
        }
        if json {
            print(try DumpedValue.jsonText(described))
            return
        }
        print("\(described.count) entities, model from \(inspected.source == .modelCache ? "the store's model cache" : "the store's tables")")
        for entity in described { print(Self.text(entity)) }
    }

    /// An entity as a JSON object.
    static func describe(_ entity: NSEntityDescription, count: Int) -> [String: Any] {
        var result: [String: Any] = ["name": entity.name!, "count": count, "abstract": entity.isAbstract]
        if let parent = entity.superentity?.name { result["parent"] = parent }
        result["subentities"] = entity.subentities.compactMap(\.name).sorted()
        var attributes: [[String: Any]] = []
        var relationships: [[String: Any]] = []
        var fetched: [[String: Any]] = []
        for property in entity.properties.sorted(by: { $0.name < $1.name }) {
            switch property {
            case let relationship as NSRelationshipDescription:
                var item: [String: Any] = [
                    "name": relationship.name, "destination": relationship.destinationEntity?.name ?? "", "toMany": relationship.isToMany,
                    "optional": relationship.isOptional, "ordered": relationship.isOrdered, "deleteRule": relationship.deleteRule.xcodeName,
                ]
                if let inverse = relationship.inverseRelationship?.name { item["inverse"] = inverse }
                relationships.append(item)
            case let property as NSFetchedPropertyDescription:
                var item: [String: Any] = ["name": property.name, "entity": property.fetchRequest?.entityName ?? ""]
                if let predicate = property.fetchRequest?.predicate { item["predicate"] = "\(predicate)" }
                fetched.append(item)
            case let attribute as NSAttributeDescription:
                var item: [String: Any] = ["name": attribute.name, "type": attribute.attributeType.xcodeName, "optional": attribute.isOptional]
                if attribute.isTransient { item["transient"] = true }
                if let derived = attribute as? NSDerivedAttributeDescription, let expression = derived.derivationExpression {
                    item["derivation"] = "\(expression)"
                }
                attributes.append(item)
            default:
                break
            }
        }
        result["attributes"] = attributes
        result["relationships"] = relationships
        result["fetchedProperties"] = fetched
        result["uniquenessConstraints"] = entity.uniquenessConstraints.map { $0.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name } }
        return result
    }

    private static func text(_ entity: [String: Any]) -> String {
        let count = entity["count"] as? Int ?? 0
        var header = "\(entity["name"]!): \(count) \(count == 1 ? "object" : "objects")"
        if let parent = entity["parent"] as? String { header += ", subentity of \(parent)" }
        if entity["abstract"] as? Bool == true { header += ", abstract" }
        var lines = [header]
        for attribute in entity["attributes"] as? [[String: Any]] ?? [] {
            var line = "  \(attribute["name"]!): \(attribute["type"]!)"
            if attribute["optional"] as? Bool == false { line += ", required" }
            if let derivation = attribute["derivation"] { line += ", derived from \(derivation)" }
            if attribute["transient"] != nil { line += ", transient" }
            lines.append(line)
        }
        for relationship in entity["relationships"] as? [[String: Any]] ?? [] {
            var line = "  \(relationship["name"]!): \(relationship["toMany"] as? Bool == true ? "to-many" : "to-one") \(relationship["destination"]!)"
            if relationship["ordered"] as? Bool == true { line += " (ordered)" }
            if let inverse = relationship["inverse"] { line += ", inverse \(inverse)" }
            line += ", \(relationship["deleteRule"]!)"
            lines.append(line)
        }
        for property in entity["fetchedProperties"] as? [[String: Any]] ?? [] {
            lines.append("  \(property["name"]!): fetched \(property["entity"]!)" + ((property["predicate"] as? String).map { " where \($0)" } ?? ""))
        }
        for constraint in entity["uniquenessConstraints"] as? [[String]] ?? [] {
            lines.append("  unique: \(constraint.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }
}
