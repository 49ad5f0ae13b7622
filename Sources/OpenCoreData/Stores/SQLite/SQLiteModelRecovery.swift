import GRDB

/// The model of a Core Data SQLite store, rebuilt from the store itself for a reader that has no
/// model: the model Core Data cached in `Z_MODELCACHE` when there is one that reads, else one
/// rebuilt from `Z_PRIMARYKEY` and the entity tables (docs/sqlite-format.md §2.1, §3).
///
/// A model rebuilt from tables is an approximation: names are the columns' without their `Z`,
/// in lower case (`ZTITLE` is `title`); every column belongs to the hierarchy's root entity; a
/// column indexed as Core Data indexes foreign keys, named after an entity, is a to-one
/// relationship to it; types follow the columns' SQL types; many-to-many relationships and
/// to-many sides are not recovered.
package enum SQLiteModelRecovery {
    /// Where a recovered model came from.
    package enum Source: Sendable {
        case modelCache
        case tables
    }

    /// The model the store at `path` was written with, from its cache or its tables.
    ///
    /// - Parameter path: A Core Data SQLite store, which is only read.
    /// - Returns: The model and where it came from.
    /// - Throws: `NSFileReadCorruptFileError` (259) when the file is not a Core Data store or its
    ///   tables describe no model.
    /// - Complexity: O(n) in the size of the schema and the cache.
    package static func model(ofStoreAt path: String) throws -> (model: NSManagedObjectModel, source: Source) {
        _ = try SQLiteFileCheck.readMetadata(atPath: path)
        if let content = SQLiteFileCheck.readModelCache(atPath: path), let model = ModelCache.model(from: content) {
            return (model, .modelCache)
        }
        return (try modelFromTables(atPath: path), .tables)
    }

    /// The model `Z_PRIMARYKEY` and the entity tables describe.
    ///
    /// - Throws: `NSFileReadCorruptFileError` (259) when they describe none.
    package static func modelFromTables(atPath path: String) throws -> NSManagedObjectModel {
        var config = Configuration()
        config.readonly = true
        let schema: Schema
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            schema = try queue.read { try Schema(reading: $0) }
        } catch let error as NSError where error.domain == NSCocoaErrorDomain {
            throw error
        } catch {
            throw SQLiteFileCheck.notAStore(path, reason: "its tables cannot be read (\(error))", sqliteCode: nil)
        }
        guard let model = schema.model() else {
            throw SQLiteFileCheck.notAStore(path, reason: "its Z_PRIMARYKEY table describes no valid entity hierarchy", sqliteCode: nil)
        }
        return model
    }

    /// What the tables say: entities by number, each root's columns and indexed columns.
    private struct Schema {
        struct Entity {
            let number: Int64
            let name: String
            let parent: Int64
        }

        var entities: [Entity] = []
        /// More entities than this is no model a store holds (and rebuilding one would take long).
        let maximumEntities = 10_000
        var columns: [String: [(name: String, type: String)]] = [:]
        var indexedColumns: [String: Set<String>] = [:]

        init(reading db: Database) throws {
            let rows = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT LIMIT ?", arguments: [maximumEntities + 1])
            for row in rows {
                // The history's entities (numbered from 16001) have tables of their own, not Z-tables.
                guard let number = Int64.fromDatabaseValue(row["Z_ENT"] as DatabaseValue), number > 0, number < 16_000,
                    let name = String.fromDatabaseValue(row["Z_NAME"] as DatabaseValue)
                else { continue }
                entities.append(Entity(number: number, name: name, parent: Int64.fromDatabaseValue(row["Z_SUPER"] as DatabaseValue) ?? 0))
            }
            for entity in entities where entity.parent == 0 {
                let table = "Z" + entity.name.uppercased()
                guard try db.tableExists(table) else { continue }
                columns[table] = try db.columns(in: table).map { ($0.name, $0.type.uppercased()) }
                // Core Data indexes every to-one's foreign key as Z<TABLE>_<COLUMN>_INDEX.
                let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", arguments: [table])
                indexedColumns[table] = Set(indexes.compactMap { name in
                    let prefix = table + "_"
                    guard name.hasPrefix(prefix), name.hasSuffix("_INDEX") else { return nil }
                    return String(name.dropFirst(prefix.count).dropLast("_INDEX".count))
                })
            }
        }

        /// The model, or nil when the entities' names or hierarchy are not a valid model's.
        ///
        /// - Complexity: O(e·d) for e entities in hierarchies d deep, plus the columns.
        func model() -> NSManagedObjectModel? {
            let candidates = entities.filter { Self.isName($0.name) }
            guard candidates.count <= maximumEntities else { return nil }
            var entryByNumber: [Int64: Entity] = [:]
            for entry in candidates {
                guard entryByNumber.updateValue(entry, forKey: entry.number) == nil else { return nil }
            }
            /// The root of an entity's hierarchy; nil when a parent is missing or the chain is
            /// longer than the depth limit (as a cycle always is).
            func root(of entry: Entity) -> Entity? {
                var current = entry
                for _ in 0...ModelLimits.maximumHierarchyDepth {
                    if current.parent == 0 { return current }
                    guard let parent = entryByNumber[current.parent] else { return nil }
                    current = parent
                }
                return nil
            }
            var valid: [Entity] = []
            for entry in candidates {
                guard let root = root(of: entry) else { return nil }
                // A hierarchy without a table (a store's leftover row) has nothing to read.
                if columns["Z" + root.name.uppercased()] != nil { valid.append(entry) }
            }
            guard !valid.isEmpty, Set(valid.map { $0.name.uppercased() }).count == valid.count else { return nil }
            var byNumber: [Int64: NSEntityDescription] = [:]
            var byUppercaseName: [String: (entity: NSEntityDescription, number: Int64)] = [:]
            for entry in valid {
                let entity = NSEntityDescription()
                entity.name = entry.name
                byNumber[entry.number] = entity
                byUppercaseName[entry.name.uppercased()] = (entity, entry.number)
            }
            let parents = Set(valid.map(\.parent))
            for entry in valid where entry.parent == 0 {
                byNumber[entry.number]!.properties = properties(
                    of: "Z" + entry.name.uppercased(), hasSubentities: { byUppercaseName[$0].map { parents.contains($0.number) } },
                    entityNamed: { byUppercaseName[$0]?.entity })
            }
            for entry in valid where entry.parent != 0 {
                byNumber[entry.parent]!.subentities.append(byNumber[entry.number]!)
            }
            let model = NSManagedObjectModel()
            model.entities = valid.map { byNumber[$0.number]! }
            return model
        }

        /// The root's properties from its table's columns.
        private func properties(
            of table: String, hasSubentities: (String) -> Bool?, entityNamed: (String) -> NSEntityDescription?
        ) -> [NSPropertyDescription] {
            let all = columns[table] ?? []
            let names = all.map { $0.name.uppercased() }
            var properties: [NSPropertyDescription] = []
            for (column, type) in all {
                let upper = column.uppercased()
                guard upper.hasPrefix("Z"), !upper.hasPrefix("Z_"), Self.entityColumnTarget(upper) == nil else { continue }
                let key = String(upper.dropFirst())
                let name = key.lowercased()
                guard Self.isName(name) else { continue }
                // A to-one: indexed as Core Data indexes foreign keys, named after an entity, with
                // a `Z<n>_<NAME>` entity column exactly when the destination has subentities.
                if type == "INTEGER", indexedColumns[table]?.contains(upper) == true, let destination = entityNamed(key),
                    hasSubentities(key) == names.contains(where: { Self.entityColumnTarget($0) == key })
                {
                    let relationship = NSRelationshipDescription()
                    relationship.name = name
                    relationship.destinationEntity = destination
                    relationship.maxCount = 1
                    relationship.deleteRule = .nullifyDeleteRule
                    properties.append(relationship)
                    continue
                }
                let attribute = NSAttributeDescription()
                attribute.name = name
                attribute.attributeType = Self.attributeType(forColumnType: type)
                properties.append(attribute)
            }
            return properties
        }

        /// The `<NAME>` of a to-one's entity-number column `Z<n>_<NAME>` (`Z1_BOOK` beside
        /// `ZBOOK`); nil for any other column.
        private static func entityColumnTarget(_ column: String) -> String? {
            let rest = column.dropFirst()
            guard column.hasPrefix("Z"), rest.first?.isNumber == true else { return nil }
            let afterDigits = rest.drop(while: \.isNumber)
            guard afterDigits.first == "_", afterDigits.count > 1 else { return nil }
            return String(afterDigits.dropFirst())
        }

        private static func attributeType(forColumnType type: String) -> NSAttributeType {
            switch type {
            case "INTEGER": .integer64AttributeType
            case "FLOAT", "REAL": .doubleAttributeType
            case "TIMESTAMP": .dateAttributeType
            case "DECIMAL": .decimalAttributeType
            case let text where text.hasPrefix("VARCHAR") || text == "TEXT": .stringAttributeType
            default: .binaryDataAttributeType
            }
        }

        /// Whether `name` can name an entity or property: a letter, then letters, digits or `_`.
        private static func isName(_ name: String) -> Bool {
            guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII, name.count <= 255 else { return false }
            return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        }
    }
}
