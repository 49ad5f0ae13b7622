import Foundation

/// What every table's part of an in-place lightweight migration needs to know of the two models,
/// whichever store runs it: which source entity each destination entity comes from, the number
/// each source entity has in the store, and how those numbers change.
struct InPlaceMigrationContext {
    let source: NSManagedObjectModel
    let mappings: [String: NSEntityMapping]
    let sourceOf: [ObjectIdentifier: NSEntityDescription]
    let oldNumber: [ObjectIdentifier: Int64]
    let renumbering: [Int64: Int64]

    /// The context of a migration from `source` to `destination` with `mapping`, for a store
    /// whose `Z_PRIMARYKEY` rows are `keys` (a renamed entity keeps its row's name there, so its
    /// number is found under the old name or its renaming identifier).
    init(source: NSManagedObjectModel, destination: NSManagedObjectModel, mapping: NSMappingModel, keys: PrimaryKeyRows) {
        var oldNumber: [ObjectIdentifier: Int64] = [:]
        for entity in source.entitiesInStoreOrder {
            oldNumber[ObjectIdentifier(entity)] =
                keys.number(named: entity.name!) ?? entity.renamingIdentifier.flatMap(keys.number(named:))
                ?? Int64(entity.layout!.entityNumber)
        }
        let mappings = Dictionary(
            mapping.entityMappings.compactMap { m in m.destinationEntityName.map { ($0, m) } }, uniquingKeysWith: { first, _ in first })
        var sourceOf: [ObjectIdentifier: NSEntityDescription] = [:]
        for entity in destination.entitiesInStoreOrder {
            if let name = mappings[entity.name!]?.sourceEntityName, let from = source.entitiesByName[name] {
                sourceOf[ObjectIdentifier(entity)] = from
            }
        }
        // Old entity number → new, for every entity carried over.
        var renumbering: [Int64: Int64] = [:]
        for entity in destination.entitiesInStoreOrder {
            if let from = sourceOf[ObjectIdentifier(entity)] {
                renumbering[oldNumber[ObjectIdentifier(from)]!] = Int64(entity.layout!.entityNumber)
            }
        }
        self.source = source
        self.mappings = mappings
        self.sourceOf = sourceOf
        self.oldNumber = oldNumber
        self.renumbering = renumbering
    }

    /// The source property a destination property of `entity` (or of a subentity inheriting it)
    /// takes its value from, as the mapping says.
    func sourceProperty(of property: NSPropertyDescription, in entity: NSEntityDescription) -> NSPropertyDescription? {
        for member in [entity] + ModelLayoutBuilder.descendants(of: entity) {
            guard let entityMapping = mappings[member.name!], let from = sourceOf[ObjectIdentifier(member)] else { continue }
            let propertyMapping = property is NSAttributeDescription
                ? entityMapping.attributeMappingsByName[property.name] : entityMapping.relationshipMappingsByName[property.name]
            guard let name = propertyMapping?.valueExpression.flatMap(Self.sourceName) else { continue }
            return from.propertiesByName[name]
        }
        return nil
    }

    /// The source property name an inferred value expression reads.
    static func sourceName(_ expression: NSExpression) -> String? {
        switch expression.storage {
        case .operandKeyPath(let operand, let key):
            if case .variable("source") = operand.storage { return key }
            return nil
        case .method(_, _, let arguments), .function(_, let arguments):
            for argument in arguments {
                if case .constant(let value as String) = argument.storage { return value }
            }
            return nil
        default:
            return nil
        }
    }

    /// `CASE column WHEN old THEN new … END`, or the column when no number changes.
    func renumbered(_ column: String) -> String {
        guard renumbering.contains(where: { $0.key != $0.value }) else { return column }
        let cases = renumbering.keys.sorted().map { "WHEN \($0) THEN \(renumbering[$0]!)" }.joined(separator: " ")
        return "CASE \(column) \(cases) ELSE \(column) END"
    }

    /// The `Z_PRIMARYKEY` rows of the migrated store, one per destination entity. A row whose
    /// number did not change keeps its name, as Core Data keeps a renamed entity's old name; the
    /// others get the entity's. Each root's counter is the highest of the tables it took rows
    /// from, so new keys never meet old ones.
    func primaryKeyRows(of destination: NSManagedObjectModel, keys: PrimaryKeyRows) -> [PrimaryKeyRows.Row] {
        destination.entitiesInStoreOrder.map { entity in
            let number = Int64(entity.layout!.entityNumber)
            var name = entity.name!
            var max: Int64 = 0
            if let from = sourceOf[ObjectIdentifier(entity)], let old = oldNumber[ObjectIdentifier(from)] {
                if old == number, let kept = keys.rows[old]?.name { name = kept }
                max = keys.rows[old]?.max ?? 0
            }
            if entity.superentity == nil {
                for member in [entity] + ModelLayoutBuilder.descendants(of: entity) {
                    guard let from = sourceOf[ObjectIdentifier(member)], let rootNumber = oldNumber[ObjectIdentifier(from.rootEntity)] else { continue }
                    max = Swift.max(max, keys.rows[rootNumber]?.max ?? 0)
                }
            }
            let superNumber = entity.superentity.map { Int64($0.layout!.entityNumber) } ?? 0
            return PrimaryKeyRows.Row(number: number, name: name, superNumber: superNumber, max: max)
        }
    }

    /// The statement that renumbers the history's changes (`ACHANGE.ZENTITY` names entities by
    /// number too); nil when no number changes.
    var historyRenumbering: String? {
        let moved = renumbering.filter { $0.key != $0.value }
        guard !moved.isEmpty else { return nil }
        let cases = moved.keys.sorted().map { "WHEN \($0) THEN \(moved[$0]!)" }.joined(separator: " ")
        return "UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(cases) ELSE ZENTITY END"
    }
}

/// The rows of `Z_PRIMARYKEY` before a migration, by entity number (the history's own rows left out).
package struct PrimaryKeyRows {
    package struct Row {
        package let number: Int64
        package let name: String
        package let superNumber: Int64
        package let max: Int64
    }

    package var rows: [Int64: (name: String, max: Int64)] = [:]

    func number(named name: String) -> Int64? { rows.first { $0.value.name == name }?.key }

    package init(rows: [Int64: (name: String, max: Int64)] = [:]) {
        self.rows = rows
    }
}

/// A value a statement of an in-place migration binds: an attribute's default value, which each
/// store binds as its column holds it.
package struct MigrationArgument {
    package let value: SlotValue
    package let attribute: NSAttributeDescription
}

/// Why an in-place migration stops, for its 134110 error.
package struct InPlaceMigrationFailure: Error, CustomStringConvertible {
    package let reason: String
    package var description: String { reason }

    /// Core Data's error for a failed in-place migration: `NSMigrationError` (134110), "Cannot
    /// migrate store in-place: …", with the store's own error (if any) as `NSUnderlyingError`.
    package static func error(_ reason: String, underlying: (any Error)?, url: URL) -> NSError {
        var info: [String: Any] = ["reason": "Cannot migrate store in-place: \(reason)", "sourceURL": url]
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        return CoreDataError.make(NSMigrationError, "Cannot migrate store in-place: \(reason)", userInfo: info)
    }
}
