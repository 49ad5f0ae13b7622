import Foundation

/// What a fetch with `.dictionaryResultType` selects, in either SQL store: a term per fetched key
/// path or expression (and the entity column an object ID needs), how each becomes a dictionary
/// value, the GROUP BY terms, and the HAVING condition, which names the fetched values by their
/// keys.
package struct SQLDictionarySelection {
    /// The SELECT list, in the order `selected` reads it.
    package private(set) var terms: [SQLFragment] = []
    package private(set) var selected: [(name: String, reader: DictionaryValueReader)] = []
    /// Each fetched or grouped value by its key, for the HAVING clause and the sort.
    package private(set) var named: [String: (SQLFragment, SQLValueKind)] = [:]
    package private(set) var groups: [SQLFragment] = []
    package private(set) var having: SQLFragment?

    /// Compiles the fetch's values over the compiler's scope, leaving the named values in the
    /// compiler for the ORDER BY that follows.
    ///
    /// - Parameters:
    ///   - fetch: The dictionary fetch.
    ///   - compiler: The compiler of the statement's WHERE clause, whose joins the values share.
    /// - Throws: 134091 for an expression that gives no one value per row or group, the
    ///   compiler's errors for the rest.
    package init(_ fetch: DictionaryFetch, compiler: inout SQLPredicateCompiler) throws {
        compiler.aggregatesGroups = fetch.aggregates
        for column in fetch.columns {
            if case .keyPath(let path) = column, let composite = compiler.entity.propertiesByName[path] as? NSCompositeAttributeDescription {
                // A whole composite: its leaves' columns, read back into one dictionary.
                let leaves = composite.storedColumns
                terms += leaves.map { SQLFragment(raw: "\(compiler.alias).\($0.column)") }
                selected.append((column.name, .composite(leaves)))
                continue
            }
            let (sql, kind, reader) = try Self.compile(column, &compiler)
            terms.append(sql)
            switch reader {
            case .object(let destination, true):
                // The concrete entity of the destination, for its object ID.
                terms.append(SQLFragment(raw: "(SELECT X.Z_ENT FROM \(destination.tableName) X WHERE X.Z_PK = \(sql))"))
            case .evaluatedObject:
                terms.append(SQLFragment(raw: "\(compiler.alias).Z_ENT"))
            default:
                break
            }
            selected.append((column.name, reader))
            named[column.name] = (sql, kind)
        }
        for column in fetch.groupBy {
            if let known = named[column.name] {
                groups.append(known.0)
            } else {
                let (sql, kind, _) = try Self.compile(column, &compiler)
                groups.append(sql)
                named[column.name] = (sql, kind)
            }
        }
        compiler.namedValues = named
        if let predicate = fetch.having { having = try compiler.compile(predicate) }
    }

    private static func compile(
        _ column: DictionaryFetch.Column, _ compiler: inout SQLPredicateCompiler
    ) throws -> (SQLFragment, SQLValueKind, DictionaryValueReader) {
        switch column {
        case .keyPath(let path):
            let (sql, kind) = try compiler.sortValue(path)
            return (sql, kind, reader(for: kind, type: .undefinedAttributeType))
        case .expression(let name, let expression, let type):
            if case .evaluatedObject = expression.storage {
                return (SQLFragment(raw: "\(compiler.alias).Z_PK"), .object(compiler.entity), .evaluatedObject)
            }
            let placeholder = NSComparisonPredicate(
                leftExpression: expression, rightExpression: NSExpression(forConstantValue: nil), modifier: .direct, type: .equalTo)
            guard case .value(let sql, let kind) = try compiler.operand(expression, of: placeholder) else {
                throw CoreDataError.make(
                    NSPersistentStoreUnsupportedRequestTypeError,
                    "The expression \(PredicateFormatter.format(expression)) of \(name) does not give one value per row or group.",
                    userInfo: ["key": name])
            }
            return (sql, kind, reader(for: kind, type: type))
        }
    }

    /// An attribute's value as itself (unless the expression asks for another type), a key as
    /// an object ID of its entity, anything else as the expression's type.
    private static func reader(for kind: SQLValueKind, type: NSAttributeType) -> DictionaryValueReader {
        switch kind {
        case .attribute(let attribute) where type == .undefinedAttributeType || type == attribute.attributeType:
            return .attribute(attribute)
        case .object(let destination) where type == .undefinedAttributeType || type == .objectIDAttributeType:
            return .object(destination, entityColumn: destination.layout!.root.layout!.hierarchyNumbers.count > 1)
        default:
            return .typed(type)
        }
    }
}
