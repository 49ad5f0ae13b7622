import OpenCoreData

/// A fetch with `.dictionaryResultType` as one PostgreSQL statement: the fetched key paths and
/// expressions, `GROUP BY` with SQL's aggregates, distinct values, order, offset and limit, so the
/// server sends the dictionaries' values rather than every row of the entity. Groups and distinct
/// values come in the order of their first row (the in-memory computation's order), ties of the
/// sort descriptors too.
///
/// `statement()` is nil when SQL cannot hold the fetch exactly (a predicate, HAVING clause or
/// value that only memory evaluates): the store then computes it in memory, with the same result.
struct PostgreSQLDictionaryQuery {
    let store: PostgreSQLStore
    let query: StoreQuery
    let fetch: DictionaryFetch

    typealias Reader = DictionaryValueReader

    struct Statement {
        let sql: String
        let binds: [PostgreSQLValue]
        let selected: [(name: String, reader: Reader)]
    }

    /// The statement, or nil when the fetch is computed in memory.
    func statement() throws -> Statement? {
        let plan = try PostgreSQLQuery(store: store, query: query).plan()
        guard plan.memoryPredicate == nil else { return nil }
        var compiler = plan.compiler
        compiler.aggregatesGroups = fetch.aggregates
        do {
            var terms: [String] = []
            var selected: [(name: String, reader: Reader)] = []
            var named: [String: (sql: String, attribute: NSAttributeDescription?)] = [:]
            for column in fetch.columns {
                let (sql, attribute, reader) = try compile(column, &compiler)
                terms.append(sql)
                switch reader {
                case .object(let destination, true):
                    terms.append("(SELECT x.Z_ENT FROM \(destination.layout!.root.layout!.tableName) x WHERE x.Z_PK = \(sql))")
                case .evaluatedObject:
                    terms.append("t.Z_ENT")
                default:
                    break
                }
                selected.append((column.name, reader))
                named[column.name] = (sql, attribute)
            }
            var groups: [String] = []
            for column in fetch.groupBy {
                if let known = named[column.name] {
                    groups.append(known.sql)
                } else {
                    groups.append(try compile(column, &compiler).0)
                }
            }
            var having: String?
            if let predicate = fetch.having {
                compiler.namedValues = named
                having = try compiler.compile(predicate)
                compiler.namedValues = [:]
            }
            // Distinct values as groups of every selected value, so that they can come in the
            // order of their first row.
            if fetch.distinct, !fetch.aggregates { groups = terms }
            let grouped = fetch.aggregates || fetch.distinct
            var order: [String] = []
            for descriptor in query.sortDescriptors {
                guard let key = descriptor.key else { return nil }
                let selector = (descriptor as? KeyedSortDescriptor)?.comparisonSelector
                guard selector == nil || selector == SortComparison.compare.rawValue else { return nil }
                let direction = descriptor.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
                if let value = named[key] {
                    let collation = value.attribute?.attributeType == .stringAttributeType ? " COLLATE \"C\"" : ""
                    guard value.attribute.map({ ["number", "date", "string"].contains(PostgreSQLPredicateCompiler.valueClass($0)) }) ?? true else { return nil }
                    order.append("\(value.sql)\(collation) \(direction)")
                } else {
                    guard !grouped, let term = try compiler.orderTerm(descriptor) else { return nil }
                    order.append(term)
                }
            }
            order.append(grouped ? "min(t.Z_PK)" : "t.Z_PK")
            let table = store.plan(of: query.entity).table
            var sql = "SELECT \(terms.joined(separator: ", ")) FROM \(table) t \(compiler.joinClause)\(plan.whereClause)"
            if !groups.isEmpty { sql += " GROUP BY \(groups.joined(separator: ", "))" }
            if let having { sql += " HAVING \(having)" }
            sql += " ORDER BY \(order.joined(separator: ", "))"
            if query.fetchLimit > 0 { sql += " LIMIT \(query.fetchLimit)" }
            if query.fetchOffset > 0 { sql += " OFFSET \(query.fetchOffset)" }
            return Statement(sql: sql, binds: compiler.binds, selected: selected)
        } catch is PostgreSQLPredicateCompiler.NotCompiled {
            return nil
        }
    }

    private func compile(
        _ column: DictionaryFetch.Column, _ compiler: inout PostgreSQLPredicateCompiler
    ) throws -> (String, NSAttributeDescription?, Reader) {
        switch column {
        case .keyPath(let path):
            guard case .column(let sql, let attribute) = try compiler.resolve(path, from: compiler.scope) else {
                throw PostgreSQLPredicateCompiler.NotCompiled()
            }
            return (sql, attribute, try reader(attribute, .undefinedAttributeType, path: path))
        case .expression(_, let expression, let type):
            if case .evaluatedObject = expression.storage { return ("t.Z_PK", nil, .evaluatedObject) }
            guard case .column(let sql, let attribute) = try compiler.operand(expression) else { throw PostgreSQLPredicateCompiler.NotCompiled() }
            let path: String? = if case .keyPath(let path) = expression.storage { path } else { nil }
            return (sql, attribute, try reader(attribute, type, path: path))
        }
    }

    /// An attribute's value as itself (unless the expression asks for another type), a to-one
    /// key as an object ID of its destination.
    private func reader(_ attribute: NSAttributeDescription?, _ type: NSAttributeType, path: String?) throws -> Reader {
        if let attribute {
            return type == .undefinedAttributeType || type == attribute.attributeType ? .attribute(attribute) : .typed(type)
        }
        guard type == .undefinedAttributeType || type == .objectIDAttributeType, let path else { return .typed(type) }
        var entity = query.entity
        for part in path.split(separator: ".") {
            guard let relationship = entity.relationshipsByName[String(part)], !relationship.isToMany,
                let destination = relationship.destinationEntity
            else { throw PostgreSQLPredicateCompiler.NotCompiled() }
            entity = destination
        }
        return .object(entity, entityColumn: entity.layout!.root.layout!.hierarchyNumbers.count > 1)
    }

    /// The dictionaries of the statement's rows; nil values are left out, as Core Data leaves them out.
    func dictionaries(_ rows: [[PostgreSQLValue]], _ statement: Statement) -> [[String: Any]] {
        rows.map { row in
            var result: [String: Any] = [:]
            var column = 0
            for (name, reader) in statement.selected {
                defer { column += reader.columnCount }
                guard column < row.count, row[column] != .null else { continue }
                let value = row[column]
                switch reader {
                case .attribute(let attribute):
                    if let handedOut = PostgreSQLValues.slot(value, attribute: attribute).publicValue(for: attribute) { result[name] = handedOut }
                case .object(let destination, let entityColumn):
                    var entity = destination
                    if entityColumn, let number = PostgreSQLValues.integer(row[column + 1]), let concrete = store.entity(number: Int32(truncatingIfNeeded: number)) {
                        entity = concrete
                    }
                    if let key = PostgreSQLValues.integer(value) { result[name] = NSManagedObjectID(entity: entity, store: store, primaryKey: key) }
                case .evaluatedObject:
                    guard let key = PostgreSQLValues.integer(value), let number = PostgreSQLValues.integer(row[column + 1]),
                        let entity = store.entity(number: Int32(truncatingIfNeeded: number))
                    else { continue }
                    result[name] = NSManagedObjectID(entity: entity, store: store, primaryKey: key)
                case .typed(let type):
                    if let typed = Self.typedValue(value, type) { result[name] = typed }
                }
            }
            return result
        }
    }

    /// A computed value in the form its declared result type asks for; as it came when the type
    /// is undefined.
    static func typedValue(_ value: PostgreSQLValue, _ type: NSAttributeType) -> Any? {
        let double: Double? = switch value {
        case .integer(let v): Double(v)
        case .real(let v): v
        case .text(let v): Double(v)
        case .boolean(let v): v ? 1 : 0
        default: nil
        }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            if case .integer(let v) = value { return NSNumber(value: v) }
            // Truncated toward zero, saturating rather than trapping.
            return double.map { NSNumber(value: Int64(exactly: $0.rounded(.towardZero)) ?? ($0.isNaN ? 0 : $0 < 0 ? .min : .max)) }
        case .doubleAttributeType: return double.map { NSNumber(value: $0) }
        case .floatAttributeType: return double.map { NSNumber(value: Float($0)) }
        case .booleanAttributeType: return double.map { NSNumber(value: $0 != 0) }
        case .decimalAttributeType:
            if case .integer(let v) = value { return NSDecimalNumber(value: v) }
            if case .text(let v) = value { return NSDecimalNumber(string: v) }
            return double.map { NSDecimalNumber(string: "\($0)") }
        case .dateAttributeType: return double.map { Date(timeIntervalSinceReferenceDate: $0) }
        case .stringAttributeType: if case .text(let v) = value { return v } else { return nil }
        case .binaryDataAttributeType: if case .bytes(let v) = value { return v } else { return nil }
        default:
            switch value {
            case .integer(let v): return NSNumber(value: v)
            case .real(let v): return NSNumber(value: v)
            case .boolean(let v): return NSNumber(value: v)
            case .text(let v): return v
            case .bytes(let v): return v
            case .null: return nil
            }
        }
    }
}
