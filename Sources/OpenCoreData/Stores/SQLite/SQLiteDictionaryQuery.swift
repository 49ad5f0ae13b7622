import GRDB
import GRDBSQLite

/// The SQL of a fetch with `.dictionaryResultType`: SELECT [DISTINCT] of the fetched key paths and
/// expressions, GROUP BY, HAVING (which names the fetched values by their keys), ORDER BY and
/// limits; and how each selected value becomes a dictionary value.
struct SQLiteDictionaryQuery {
    let store: SQLiteStore

    typealias Reader = DictionaryValueReader

    struct Selected {
        let name: String
        let reader: Reader
    }

    func statement(_ query: StoreQuery, _ fetch: DictionaryFetch) throws -> (SQLFragment, [Selected]) {
        let builder = SQLiteQueryBuilder(store: store)
        var source = try builder.source(query)
        let selection = try SQLDictionarySelection(fetch, compiler: &source.compiler)
        let grouped = fetch.aggregates || fetch.distinct
        let order = try builder.orderBy(query.sortDescriptors, &source.compiler, table: grouped ? nil : source.table)
        var sql: SQLFragment = "SELECT \(raw: fetch.distinct ? "DISTINCT " : "")\(SQLFragment.joined(selection.terms, separator: ", "))"
        sql += " FROM \(raw: source.table)\(source.compiler.joins.sql)\(source.whereClause)"
        if !selection.groups.isEmpty { sql += " GROUP BY \(SQLFragment.joined(selection.groups, separator: ", "))" }
        if let having = selection.having { sql += " HAVING \(having)" }
        if !order.isEmpty { sql += " ORDER BY \(order)" }
        sql += builder.limit(query)
        return (sql, selection.selected.map { Selected(name: $0.name, reader: $0.reader) })
    }

    /// The dictionary of the current row; nil values are left out, as Core Data leaves them out.
    func read(_ handle: OpaquePointer, _ selected: [Selected], externalData: (String) -> Data?) -> [String: Any] {
        var result: [String: Any] = [:]
        var column: Int32 = 0
        for item in selected {
            defer { column += Int32(item.reader.columnCount) }
            if case .composite(let leaves) = item.reader {
                let values = leaves.enumerated().map { offset, leaf in
                    let value = SQLiteColumn.read(
                        handle, column + Int32(offset), SQLiteHierarchyPlan.kind(of: leaf.attribute), storeNumbers: store.modelNumber, externalData: externalData)
                    return (leaf.path, value.publicValue(for: leaf.attribute))
                }
                if case .object(let box) = CompositeValue.slot(fromLeaves: values) { result[item.name] = box.value }
                continue
            }
            guard sqlite3_column_type(handle, column) != SQLITE_NULL else { continue }
            switch item.reader {
            case .attribute(let attribute):
                let kind = SQLiteHierarchyPlan.kind(of: attribute)
                let value = SQLiteColumn.read(handle, column, kind, storeNumbers: store.modelNumber, externalData: externalData)
                if let handedOut = value.publicValue(for: attribute) { result[item.name] = handedOut }
            case .object(let destination, let entityColumn):
                var entity = destination
                if entityColumn, sqlite3_column_type(handle, column + 1) != SQLITE_NULL,
                    let concrete = store.entity(number: store.modelNumber(sqlite3_column_int(handle, column + 1)))
                {
                    entity = concrete
                }
                result[item.name] = NSManagedObjectID(entity: entity, store: store, primaryKey: sqlite3_column_int64(handle, column))
            case .evaluatedObject:
                // No entity for the row's number only in a damaged file: the ID is left out.
                guard let entity = store.entity(number: store.modelNumber(sqlite3_column_int(handle, column + 1))) else { continue }
                result[item.name] = NSManagedObjectID(entity: entity, store: store, primaryKey: sqlite3_column_int64(handle, column))
            case .typed(let type):
                if let value = Self.typedValue(handle, column, type) { result[item.name] = value }
            case .composite: break  // read above
            }
        }
        return result
    }

    /// A computed value in the form its declared result type asks for; the stored form when the
    /// type is undefined.
    static func typedValue(_ handle: OpaquePointer, _ column: Int32, _ type: NSAttributeType) -> Any? {
        let storage = sqlite3_column_type(handle, column)
        let integer = sqlite3_column_int64(handle, column)
        let double = sqlite3_column_double(handle, column)
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            // A REAL where an integer is declared (a computed value, or a hostile file) is
            // truncated as SQLite's own conversion does, saturating rather than trapping.
            return NSNumber(value: storage == SQLITE_FLOAT ? (Int64(exactly: double.rounded(.towardZero)) ?? (double.isNaN ? 0 : double < 0 ? .min : .max)) : integer)
        case .doubleAttributeType: return NSNumber(value: double)
        case .floatAttributeType: return NSNumber(value: Float(double))
        case .booleanAttributeType: return NSNumber(value: integer != 0)
        case .decimalAttributeType:
            return storage == SQLITE_INTEGER ? NSDecimalNumber(value: integer) : NSDecimalNumber(string: "\(double)")
        case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: double)
        case .stringAttributeType: return SQLiteColumn.text(handle, column)
        case .binaryDataAttributeType: return SQLiteColumn.blob(handle, column)
        default:
            switch storage {
            case SQLITE_INTEGER: return NSNumber(value: integer)
            case SQLITE_FLOAT: return NSNumber(value: double)
            case SQLITE_TEXT: return SQLiteColumn.text(handle, column)
            default: return SQLiteColumn.blob(handle, column)
            }
        }
    }
}
