import GRDB

/// Compiles a predicate to a SQL condition with every value bound as a parameter.
///
/// A predicate the store cannot express in SQL is refused with Core Data's error, never evaluated
/// in memory over the whole table.
struct SQLPredicateCompiler {
    let entity: NSEntityDescription
    let table: String
    let store: SQLiteStore
    var joins: SQLJoins
    private(set) var arguments = StatementArguments()

    init(entity: NSEntityDescription, table: String, store: SQLiteStore, joins: SQLJoins) {
        self.entity = entity
        self.table = table
        self.store = store
        self.joins = joins
    }

    mutating func compile(_ predicate: Foundation.NSPredicate) throws -> String {
        if predicate.isEqual(Foundation.NSPredicate(value: true)) { return "1" }
        if predicate.isEqual(Foundation.NSPredicate(value: false)) { return "0" }
        if let compound = predicate as? NSCompoundPredicate {
            let parts = try compound.subpredicates.map { try compile($0) }
            switch compound.compoundPredicateType {
            case .and: return parts.isEmpty ? "1" : parts.map { "(\($0))" }.joined(separator: " AND ")
            case .or: return parts.isEmpty ? "0" : parts.map { "(\($0))" }.joined(separator: " OR ")
            case .not: return "NOT (\(parts.first ?? "1"))"
            @unknown default: break
            }
        }
        throw CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError,
            "The SQLite store can't run the predicate \(predicate) on entity \(entity.name ?? "?").")
    }
}
