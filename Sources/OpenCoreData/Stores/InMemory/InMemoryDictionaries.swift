/// Dictionary results computed in Swift for the in-memory store, with the semantics of the SQL
/// the SQLite store runs: aggregates skip nil values (a sum of none is nil, a count is of non-nil
/// values), a fetch with aggregates and no grouping gives one dictionary, nil values are left out.
package struct InMemoryDictionaries {
    let store: NSPersistentStore
    let entity: NSEntityDescription

    package func compute(_ rows: [StoreRowView], _ fetch: DictionaryFetch, _ query: StoreQuery) throws -> [[String: Any]] {
        try validate(fetch)
        let groups: [[StoreRowView]]
        if !fetch.groupBy.isEmpty {
            var keyed: [(key: [Any?], rows: [StoreRowView])] = []
            for row in rows {
                let key = try fetch.groupBy.map { try value(of: $0, rows: [row]) }
                if let index = keyed.firstIndex(where: { zip($0.key, key).allSatisfy { ValueComparison.isEqual($0, $1) } }) {
                    keyed[index].rows.append(row)
                } else {
                    keyed.append((key, [row]))
                }
            }
            groups = keyed.map(\.rows)
        } else if fetch.aggregates {
            groups = [rows]
        } else {
            groups = rows.map { [$0] }
        }
        var results: [[String: Any]] = []
        for group in groups {
            var dictionary: [String: Any] = [:]
            for column in fetch.columns {
                if let value = try value(of: column, rows: group) { dictionary[column.name] = value }
            }
            // HAVING reads the fetched values by name, as a key path or a `$variable`.
            if let having = fetch.having, !having.evaluate(with: dictionary, substitutionVariables: dictionary) { continue }
            if fetch.distinct, results.contains(where: { Self.same($0, dictionary) }) { continue }
            results.append(dictionary)
        }
        if !query.sortDescriptors.isEmpty {
            results = results.enumerated().sorted { a, b in
                for descriptor in query.sortDescriptors {
                    guard let key = descriptor.key else { continue }
                    let comparison = SortComparison(selector: (descriptor as? KeyedSortDescriptor)?.comparisonSelector)
                    var order = comparison.compareValues(a.element[key], b.element[key])
                    if !descriptor.ascending { order = order == .orderedAscending ? .orderedDescending : (order == .orderedDescending ? .orderedAscending : order) }
                    if order != .orderedSame { return order == .orderedAscending }
                }
                return a.offset < b.offset
            }.map(\.element)
        }
        if query.fetchOffset > 0 { results = Array(results.dropFirst(query.fetchOffset)) }
        if query.fetchLimit > 0 { results = Array(results.prefix(query.fetchLimit)) }
        return results
    }

    private static func same(_ a: [String: Any], _ b: [String: Any]) -> Bool {
        a.count == b.count && a.allSatisfy { key, value in ValueComparison.isEqual(value, b[key]) }
    }

    /// A column's value for a group of rows (one row when nothing aggregates).
    private func value(of column: DictionaryFetch.Column, rows: [StoreRowView]) throws -> Any? {
        switch column {
        case .keyPath(let path):
            return rows.first.map { handOut(KeyValueReader.value(atKeyPath: path, of: $0)) } ?? nil
        case .expression(_, let expression, let type):
            if case .evaluatedObject = expression.storage { return rows.first.map { objectID($0) } }
            if column.aggregatesRows(of: entity), case .function(let name, let arguments) = expression.storage,
                let op = CollectionOperator(function: name)
            {
                let values = rows.compactMap { ValueComparison.normalize(PredicateEvaluator.value(of: arguments[0], object: $0, bindings: nil)) }
                return typed(aggregate(op, values), type == .undefinedAttributeType && op == .count ? .integer64AttributeType : type)
            }
            return rows.first.map { typed(handOut(PredicateEvaluator.value(of: expression, object: $0, bindings: nil)), type) } ?? nil
        }
    }

    /// SQL's aggregates over the non-nil values of a group.
    private func aggregate(_ op: CollectionOperator, _ values: [Any]) -> Any? {
        if op == .count { return NSNumber(value: values.count) }
        guard !values.isEmpty else { return nil }
        switch op {
        case .sum, .average:
            let numbers = values.compactMap(ValueComparison.doubleValue)
            let sum = numbers.reduce(0, +)
            if op == .average { return NSNumber(value: sum / Double(numbers.count)) }
            if values.allSatisfy({ $0 is Int64 }) { return NSNumber(value: values.reduce(Int64(0)) { $0 &+ ($1 as! Int64) }) }
            return NSNumber(value: sum)
        default:
            var best = values[0]
            for value in values.dropFirst() {
                let order = ValueComparison.compare(value, best)
                if order == (op == .min ? .orderedAscending : .orderedDescending) { best = value }
            }
            return best
        }
    }

    /// Rows of to-one relationships as object IDs; everything else as read.
    private func handOut(_ value: Any?) -> Any? {
        if let row = value as? StoreRowView { return objectID(row) }
        return value
    }

    private func objectID(_ row: StoreRowView) -> NSManagedObjectID {
        NSManagedObjectID(entity: store.entity(number: row.row.entityNumber)!, store: store, primaryKey: row.row.primaryKey)
    }

    /// A computed value in its expression description's result type.
    private func typed(_ value: Any?, _ type: NSAttributeType) -> Any? {
        guard let normalized = ValueComparison.normalize(value) else { return nil }
        switch type {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            return ValueComparison.int64Value(normalized).map { NSNumber(value: $0) } ?? value
        case .doubleAttributeType: return ValueComparison.doubleValue(normalized).map { NSNumber(value: $0) } ?? value
        case .floatAttributeType: return ValueComparison.doubleValue(normalized).map { NSNumber(value: Float($0)) } ?? value
        case .booleanAttributeType: return ValueComparison.int64Value(normalized).map { NSNumber(value: $0 != 0) } ?? value
        case .decimalAttributeType: return ValueComparison.doubleValue(normalized).map { NSDecimalNumber(value: $0) } ?? value
        case .dateAttributeType:
            if normalized is Date { return normalized }
            return ValueComparison.doubleValue(normalized).map { Date(timeIntervalSinceReferenceDate: $0) }
        default:
            // Numbers as NSNumber, as attribute values are handed out.
            switch normalized {
            case let x as Int64: return NSNumber(value: x)
            case let x as Double: return NSNumber(value: x)
            case let x as Decimal: return NSDecimalNumber(decimal: x)
            default: return normalized
            }
        }
    }

    /// Refuses a key path the model does not have, as the SQLite store does.
    package func validate(_ fetch: DictionaryFetch) throws {
        for case .keyPath(let path) in fetch.columns + fetch.groupBy {
            var current: NSEntityDescription? = entity
            let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            for (index, part) in parts.enumerated() {
                // A composite's elements follow it: `address.city`.
                if let composite = current?.propertiesByName[part] as? NSCompositeAttributeDescription {
                    let rest = parts[(index + 1)...]
                    guard rest.isEmpty || composite.element(at: rest) != nil else {
                        throw CoreDataError.make(
                            NSCoreDataError, "Keypath \(path) names no element of the composite \(part) of entity \(current?.name ?? "?")",
                            userInfo: ["entity": current?.name ?? "", "key": path])
                    }
                    break
                }
                guard let property = current?.propertiesByName[part], !((property as? NSRelationshipDescription)?.isToMany ?? false) else {
                    throw CoreDataError.make(
                        NSCoreDataError, "Keypath \(part) not found in entity \(current?.name ?? "?") or not to-one",
                        userInfo: ["entity": current?.name ?? "", "key": part])
                }
                current = (property as? NSRelationshipDescription)?.destinationEntity
            }
        }
    }

    package init(store: NSPersistentStore, entity: NSEntityDescription) {
        self.store = store
        self.entity = entity
    }
}
