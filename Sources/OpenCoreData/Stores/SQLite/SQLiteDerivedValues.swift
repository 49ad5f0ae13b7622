import Foundation
import GRDB
import Synchronization

/// What the derived-attribute triggers report while a save runs: Core Data's triggers call
/// `NSCoreDataDATrigger…AffectedObjectValue(table, Z_ENT, Z_PK, attribute, value)` for every row
/// whose derived value they set, so that the saving context's objects get the new values.
final class SQLiteDerivedReports: Sendable {
    struct Report {
        let storeNumber: Int32
        let primaryKey: Int64
        let attribute: String
        let value: DatabaseValue
    }

    /// Nil outside a save: a batch request's triggers report to no one.
    private let reports = Mutex<[Report]?>(nil)

    func begin() { reports.withLock { $0 = [] } }

    /// The reports since `begin()`, which stops collecting.
    func end() -> [Report] { reports.withLock { value in defer { value = nil }; return value ?? [] } }

    fileprivate func record(_ arguments: [DatabaseValue]) {
        guard arguments.count == 5, let number = Int32.fromDatabaseValue(arguments[1]),
            let key = Int64.fromDatabaseValue(arguments[2]), let name = String.fromDatabaseValue(arguments[3])
        else { return }
        reports.withLock { $0?.append(Report(storeNumber: number, primaryKey: key, attribute: name, value: arguments[4])) }
    }

    /// Registers the functions Core Data's derived-attribute triggers call, on every connection:
    /// an Apple store's triggers fail without them (docs/sqlite-format.md §3).
    func register(on db: Database) {
        for name in [SQLiteDerivedTriggers.insertedValue, SQLiteDerivedTriggers.updatedValue] {
            db.add(function: DatabaseFunction(name, argumentCount: 5, pure: false) { [self] arguments in
                record(arguments)
                return nil
            })
        }
        db.add(function: DatabaseFunction("NSCoreDataNow", argumentCount: 0, pure: false) { _ in
            Date().timeIntervalSinceReferenceDate
        })
        let strings: [(String, @Sendable (String) -> String)] = [
            ("NSCoreDataCanonical", { ValueComparison.fold($0, caseInsensitive: true, diacriticInsensitive: true) }),
            ("NSCoreDataToUpper", { $0.uppercased() }),
            ("NSCoreDataToLower", { $0.lowercased() }),
        ]
        for (name, transform) in strings {
            db.add(function: DatabaseFunction(name, argumentCount: 1, pure: true) { arguments in
                String.fromDatabaseValue(arguments[0]).map(transform)
            })
        }
    }
}

extension SQLiteStore {
    /// Creates the triggers of the model's derived attributes that the file lacks (a new store,
    /// one migrated, or one written before OpenCoreData kept derived values), and fills each
    /// attribute's column for the rows already there, as Core Data does when it creates them.
    ///
    /// - Throws: SQLite's errors, or `NSCoreDataError` for a derivation the triggers can't keep.
    /// - Complexity: O(derived attributes) when the triggers exist; a pass over a table per
    ///   attribute whose triggers are created.
    func installDerivedTriggers(entities: [NSEntityDescription]) throws {
        var wanted: [SQLiteDerivedTriggers] = []
        for entity in entities {
            for case let derived as NSDerivedAttributeDescription in entity.declaredProperties where derived.columnName != nil {
                wanted.append(try SQLiteDerivedTriggers(derived, of: entity, form: try DerivationForm(derived, entity: entity), storeNumber: storeNumber))
            }
        }
        guard !wanted.isEmpty, let pool else { return }
        let present = try pool.read { db in Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger'")) }
        let missing = wanted.filter { !$0.triggers.allSatisfy { present.contains($0.name) } }
        guard !missing.isEmpty else { return }
        try pool.write { db in
            for attribute in missing {
                for trigger in attribute.triggers { try db.execute(sql: trigger.sql) }
                try db.execute(sql: attribute.backfill)
            }
        }
    }

    /// The derived values the save's triggers reported, as the model's entities and slots.
    func derivedValues(from reports: [SQLiteDerivedReports.Report]) -> [DerivedValue] {
        DerivedValue.latest(reports.compactMap { report in
            let number = modelNumber(report.storeNumber)
            guard let entity = entity(number: number),
                let attribute = entity.propertiesByName[report.attribute] as? NSAttributeDescription
            else { return nil }
            return DerivedValue(
                entityNumber: number, primaryKey: report.primaryKey, slot: attribute.slot, value: SQLiteDerivedReports.slot(report.value, for: attribute))
        })
    }
}

extension SQLiteDerivedReports {
    /// A reported value as the attribute's slot: the column's value in the attribute's form.
    static func slot(_ value: DatabaseValue, for attribute: NSAttributeDescription) -> SlotValue {
        let raw: Any?
        switch value.storage {
        case .null: return .null
        case .int64(let number):
            raw = attribute.attributeType == .dateAttributeType ? Date(timeIntervalSinceReferenceDate: Double(number)) : number
        case .double(let number):
            raw = attribute.attributeType == .dateAttributeType ? Date(timeIntervalSinceReferenceDate: number) : number
        case .string(let text): raw = text
        case .blob(let data): raw = data
        }
        let slot = SlotValue(attributeValue: raw, for: attribute)
        if case .invalid = slot { return .null }
        return slot
    }
}
