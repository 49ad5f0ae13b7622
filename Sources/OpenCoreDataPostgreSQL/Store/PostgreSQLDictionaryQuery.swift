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
    ///
    /// - Throws: The relational layer's error for a key path or expression SQL cannot hold
    ///   (`NSPersistentStoreUnsupportedRequestTypeError`, as the SQLite store's).
    func statement() throws -> Statement? {
        let plan = try PostgreSQLQuery(store: store, query: query).plan()
        guard plan.memoryPredicate == nil else { return nil }
        var compiler = plan.compiler
        do {
            let selection = try SQLDictionarySelection(fetch, compiler: &compiler)
            // Distinct values as groups of every selected value, so that they can come in the
            // order of their first row.
            let groups = fetch.distinct && !fetch.aggregates ? selection.terms : selection.groups
            let grouped = fetch.aggregates || fetch.distinct
            var order: [SQLFragment] = []
            for descriptor in query.sortDescriptors {
                guard let key = descriptor.key else { return nil }
                if let (value, kind) = selection.named[key] {
                    let selector = (descriptor as? KeyedSortDescriptor)?.comparisonSelector
                    guard selector == nil || selector == SortComparison.compare.rawValue,
                        let term = PostgreSQLQuery.orderTerm(value, kind, ascending: descriptor.ascending)
                    else { return nil }
                    order.append(term)
                } else {
                    guard !grouped, let term = try PostgreSQLQuery.orderTerm(descriptor, &compiler) else { return nil }
                    order.append(term)
                }
            }
            order.append(grouped ? "min(t.Z_PK)" : "t.Z_PK")
            let table = store.plan(of: query.entity).table
            var sql: SQLFragment = "SELECT \(SQLFragment.joined(selection.terms, separator: ", ")) FROM \(raw: table) t\(compiler.joins.sql)\(plan.whereClause)"
            if !groups.isEmpty { sql += " GROUP BY \(SQLFragment.joined(groups, separator: ", "))" }
            if let having = selection.having { sql += " HAVING \(having)" }
            sql += " ORDER BY \(SQLFragment.joined(order, separator: ", "))"
            if query.fetchLimit > 0 { sql += SQLFragment(raw: " LIMIT \(query.fetchLimit)") }
            if query.fetchOffset > 0 { sql += SQLFragment(raw: " OFFSET \(query.fetchOffset)") }
            let rendered = PostgreSQLDialect.render(sql)
            return Statement(sql: rendered.sql, binds: rendered.binds, selected: selection.selected)
        } catch is SQLNeedsEvaluator {
            return nil
        }
    }

    /// The dictionaries of the statement's rows; nil values are left out, as Core Data leaves them out.
    func dictionaries(_ rows: [[PostgreSQLValue]], _ statement: Statement) -> [[String: Any]] {
        rows.map { row in
            var result: [String: Any] = [:]
            var column = 0
            for (name, reader) in statement.selected {
                defer { column += reader.columnCount }
                if case .composite(let leaves) = reader {
                    guard column + leaves.count <= row.count else { continue }
                    let values = leaves.enumerated().map { offset, leaf in
                        (leaf.path, PostgreSQLValues.slot(row[column + offset], attribute: leaf.attribute).publicValue(for: leaf.attribute))
                    }
                    if case .object(let box) = CompositeValue.slot(fromLeaves: values) { result[name] = box.value }
                    continue
                }
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
                case .composite: break  // read above
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
