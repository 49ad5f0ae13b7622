import ArgumentParser
import OpenCoreData

/// `dump STORE ENTITY [--where PREDICATE] [--json|--csv]`: the objects of an entity (its
/// subentities' included, as a fetch returns them), attributes as values and relationships as
/// object IDs (`x-coredata://<store UUID>/<Entity>/p<key>`).
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the objects of an entity.")

    @OptionGroup var store: StoreArgument
    @Argument(help: "The entity.") var entity: String
    @Option(name: .customLong("where"), help: "A Core Data predicate, such as \"name BEGINSWITH 'A' AND age > 30\".")
    var predicate: String?
    @Flag(help: "Print a JSON array.") var json = false
    @Flag(help: "Print CSV with a header row.") var csv = false

    func validate() throws {
        if json && csv { throw ValidationError("--json and --csv are exclusive.") }
    }

    func run() throws {
        let inspected = try InspectedStore(path: store.store)
        guard let description = inspected.model.entitiesByName[entity] else {
            let names = inspected.model.entities.compactMap(\.name).sorted().joined(separator: ", ")
            throw InspectError("The store has no entity named \(entity) (it has \(names)).")
        }
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        if let predicate {
            do {
                request.predicate = try NSPredicate(validatingFormat: predicate)
            } catch {
                throw InspectError("The predicate \(predicate) does not parse: \(InspectError(error).description)")
            }
        }
        // Its subentities' properties too: their objects are among those fetched.
        var byName: [String: NSPropertyDescription] = [:]
        var pending = [description]
        while let next = pending.popLast() {
            for property in next.properties where !property.isTransient && byName[property.name] == nil { byName[property.name] = property }
            pending += next.subentities
        }
        let properties = byName.values.sorted { $0.name < $1.name }
        let rows: [[(String, Any?)]] = try inspected.context.performAndWait {
            try inspected.context.fetch(request).map { object in
                [("objectID", DumpedValue.uri(object) as Any?), ("entity", object.entity.name as Any?)]
                    + properties.compactMap { property in
                        object.entity.propertiesByName[property.name].map { (property.name, Self.value(of: $0, in: object)) }
                    }
            }
        }
        if json {
            print(try DumpedValue.jsonText(rows.map { Dictionary($0.map { ($0.0, DumpedValue.json($0.1)) }, uniquingKeysWith: { a, _ in a }) }))
        } else if csv {
            let header = ["objectID", "entity"] + properties.map(\.name)
            print(header.map(DumpedValue.csvField).joined(separator: ","))
            for row in rows {
                let values = Dictionary(row.map { ($0.0, DumpedValue.text($0.1)) }, uniquingKeysWith: { a, _ in a })
                print(header.map { DumpedValue.csvField(values[$0] ?? "") }.joined(separator: ","))
            }
        } else {
            for row in rows {
                print(DumpedValue.text(row[0].1))
                for (name, value) in row.dropFirst(2) { print("  \(name) = \(DumpedValue.text(value))") }
            }
            print("\(rows.count) \(entity) objects")
        }
    }

    /// An attribute's value, or a relationship's object IDs (one for a to-one, a list for a
    /// to-many).
    private static func value(of property: NSPropertyDescription, in object: NSManagedObject) -> Any? {
        let value = object.value(forKey: property.name)
        guard let relationship = property as? NSRelationshipDescription else { return value }
        let uris = DumpedValue.objects(value).map(DumpedValue.uri)
        return relationship.isToMany ? ToManyIDs(uris: uris) : uris.first
    }
}

/// A to-many relationship's object IDs: a JSON array in JSON, separated by spaces in text.
struct ToManyIDs {
    let uris: [String]
}
