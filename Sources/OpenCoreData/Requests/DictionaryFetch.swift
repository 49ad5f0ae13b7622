/// The columns of a dictionary fetch, resolved from a request's `propertiesToFetch`,
/// `propertiesToGroupBy`, `havingPredicate` and `returnsDistinctResults`.
package struct DictionaryFetch {
    /// One value of each result dictionary.
    package enum Column {
        /// An attribute or to-one key path (a relationship gives the destination's object ID),
        /// returned under the key path.
        case keyPath(String)
        /// An expression description, returned under its name.
        case expression(name: String, NSExpression, NSAttributeType)

        package var name: String {
            switch self {
            case .keyPath(let path): path
            case .expression(let name, _, _): name
            }
        }

        /// Whether the value aggregates the rows of a group (`sum:`, `count:`… of a key path that
        /// stays on `entity`'s to-one relationships), so it may be fetched with a GROUP BY that
        /// does not name it. Of a to-many key path, the same functions give one value per row.
        func aggregatesRows(of entity: NSEntityDescription) -> Bool {
            guard case .expression(_, let expression, _) = self, case .function(let name, let arguments) = expression.storage,
                ["sum:", "count:", "min:", "max:", "average:"].contains(name), arguments.count == 1
            else { return false }
            return !DictionaryFetch.reachesToMany(arguments[0], from: entity)
        }
    }

    /// Whether a key path expression goes through a to-many relationship of `entity`.
    static func reachesToMany(_ expression: NSExpression, from entity: NSEntityDescription) -> Bool {
        guard case .keyPath(let path) = expression.storage else { return false }
        var current: NSEntityDescription? = entity
        for part in path.split(separator: ".") {
            guard let relationship = current?.relationshipsByName[String(part)] else { return false }
            if relationship.isToMany { return true }
            current = relationship.destinationEntity
        }
        return false
    }

    package var columns: [Column]
    package var groupBy: [Column]
    package var having: NSPredicate?
    package var distinct: Bool
    /// Whether the fetch gives one dictionary per group (or one for all rows when nothing is
    /// grouped but a value aggregates rows) rather than one per row.
    package let aggregates: Bool

    /// - Throws: `NSCoreDataError` for an item that is neither a key path nor a property
    ///   description, a grouped fetch of a value that is neither grouped nor an aggregate, or a
    ///   HAVING clause without GROUP BY.
    init<T>(_ request: NSFetchRequest<T>, entity: NSEntityDescription) throws {
        let fetched = try (request.propertiesToFetch ?? Self.defaultProperties(of: entity)).map(Self.column)
        let grouped = try (request.propertiesToGroupBy ?? []).map(Self.column)
        if !grouped.isEmpty {
            let names = Set(grouped.map(\.name))
            for column in fetched where !column.aggregatesRows(of: entity) && !names.contains(column.name) {
                throw CoreDataError.make(
                    NSCoreDataError,
                    "\(column.name) is fetched with propertiesToGroupBy but is neither grouped by nor an aggregate expression.",
                    userInfo: ["key": column.name])
            }
        }
        if request.havingPredicate != nil, grouped.isEmpty {
            throw CoreDataError.make(NSCoreDataError, "A havingPredicate requires propertiesToGroupBy.")
        }
        columns = fetched
        groupBy = grouped
        aggregates = !grouped.isEmpty || fetched.contains { $0.aggregatesRows(of: entity) }
        having = request.havingPredicate
        distinct = request.returnsDistinctResults
    }

    /// Without `propertiesToFetch`: every attribute and to-one relationship.
    private static func defaultProperties(of entity: NSEntityDescription) -> [Any] {
        entity.properties.filter { property in
            if property.isTransient { return false }
            if let relationship = property as? NSRelationshipDescription { return !relationship.isToMany }
            return property is NSAttributeDescription
        }
    }

    private static func column(_ item: Any) throws -> Column {
        switch item {
        case let description as NSExpressionDescription:
            guard let expression = description.expression else {
                throw CoreDataError.make(NSCoreDataError, "The expression description \(description.name) has no expression.")
            }
            return .expression(name: description.name, expression, description.expressionResultType)
        case let property as NSPropertyDescription: return .keyPath(property.name)
        case let name as String: return .keyPath(name)
        case let name as NSString: return .keyPath(name as String)
        case let keyPath as AnyKeyPath:
            guard let name = ManagedKeyPathNames.name(of: keyPath) else {
                throw CoreDataError.make(NSCoreDataError, "The key path \(keyPath) in propertiesToFetch does not name managed properties.")
            }
            return .keyPath(name)
        default:
            throw CoreDataError.make(NSCoreDataError, "propertiesToFetch and propertiesToGroupBy take names and property descriptions, not \(type(of: item)).")
        }
    }
}
