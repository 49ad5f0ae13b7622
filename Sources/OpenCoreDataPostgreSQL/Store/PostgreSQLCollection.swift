import OpenCoreData

/// The elements a to-many key path reaches, as the FROM and WHERE of a correlated subquery:
/// `books.tags.label` from an author is the labels of the tags of the author's books.
///
/// The rows are the elements the in-memory evaluator sees when it flattens the key path: one per
/// object reached through each to-many (duplicates kept), and one NULL element for an object whose
/// to-one on the way is nil. Every step after the first is a LEFT JOIN, with a condition that
/// drops the empty to-many of an object but keeps the NULL row of a missing one.
struct PostgreSQLCollection {
    private(set) var from: String
    private(set) var conditions: [String]
    /// The alias and entity of the objects reached so far.
    private(set) var alias: String
    private(set) var entity: NSEntityDescription
    /// The column standing for each element when the path ends on an attribute (with it) or on a
    /// to-one (its key, no attribute); nil: the objects at `alias` are the elements.
    private(set) var element: (column: String, attribute: NSAttributeDescription?)?
    private var finalToOne: NSRelationshipDescription?
    /// Whether an object at `alias` may be missing (a nil to-one on the way).
    private(set) var elementsMayBeNull = false
    /// The outer key the collection hangs from, when it may be NULL: the in-memory value of the
    /// whole key path is then nil rather than an empty collection.
    let nullableSource: String?

    /// The destinations of the to-many `relationship` of the object whose key is `source.Z_PK`.
    ///
    /// - Throws: `NotCompiled` for a relationship with no storage to join.
    init(_ relationship: NSRelationshipDescription, source: String, sourceMayBeNull: Bool, alias next: String) throws {
        let table = relationship.destinationEntity!.layout!.tableName
        if let inverse = relationship.inverseRelationship, !inverse.isToMany, let foreignKey = inverse.columnName {
            from = "\(table) \(next)"
            conditions = ["\(next).\(foreignKey) = \(source).Z_PK"]
        } else if let join = relationship.joinTable {
            let pairs = next + "m"
            from = "\(join.name) \(pairs) JOIN \(table) \(next) ON \(next).Z_PK = \(pairs).\(join.destinationColumn)"
            conditions = ["\(pairs).\(join.sourceColumn) = \(source).Z_PK"]
        } else {
            throw PostgreSQLPredicateCompiler.NotCompiled()
        }
        alias = next
        entity = relationship.destinationEntity!
        nullableSource = sourceMayBeNull ? "\(source).Z_PK" : nil
    }

    /// Follows `relationship` from the objects reached so far; `next` names its table and
    /// `finalAlias` the table of a to-one the path ended on so far, if it must be joined (each
    /// alias unused elsewhere in the statement).
    mutating func follow(_ relationship: NSRelationshipDescription, alias next: String, finalAlias: String) throws {
        joinFinalToOne(alias: finalAlias)
        let previous = alias
        let destination = relationship.destinationEntity!
        let table = destination.layout!.tableName
        if !relationship.isToMany {
            guard let foreignKey = relationship.columnName else { throw PostgreSQLPredicateCompiler.NotCompiled() }
            from += " LEFT JOIN \(table) \(next) ON \(next).Z_PK = \(previous).\(foreignKey)"
        } else if let inverse = relationship.inverseRelationship, !inverse.isToMany, let foreignKey = inverse.columnName {
            from += " LEFT JOIN \(table) \(next) ON \(next).\(foreignKey) = \(previous).Z_PK"
            conditions.append("(\(previous).Z_PK IS NULL OR \(next).Z_PK IS NOT NULL)")
        } else if let join = relationship.joinTable {
            let pairs = next + "m"
            from += " LEFT JOIN \(join.name) \(pairs) ON \(pairs).\(join.sourceColumn) = \(previous).Z_PK"
                + " LEFT JOIN \(table) \(next) ON \(next).Z_PK = \(pairs).\(join.destinationColumn)"
            conditions.append("(\(previous).Z_PK IS NULL OR \(next).Z_PK IS NOT NULL)")
        } else {
            throw PostgreSQLPredicateCompiler.NotCompiled()
        }
        alias = next
        entity = destination
        elementsMayBeNull = true
    }

    /// Ends the path on a to-one: its key column is the element.
    mutating func end(onToOne relationship: NSRelationshipDescription, finalAlias: String) throws {
        joinFinalToOne(alias: finalAlias)
        guard let foreignKey = relationship.columnName else { throw PostgreSQLPredicateCompiler.NotCompiled() }
        element = ("\(alias).\(foreignKey)", nil)
        finalToOne = relationship
    }

    /// Ends the path on an attribute column.
    mutating func end(onAttribute attribute: NSAttributeDescription, column: String, finalAlias: String) {
        joinFinalToOne(alias: finalAlias)
        element = ("\(alias).\(column)", attribute)
    }

    /// Makes the elements objects with an alias (for SUBQUERY's predicate), joining a final
    /// to-one; false when the elements are attribute values.
    mutating func elementsAreObjects(alias next: String) -> Bool {
        if finalToOne != nil {
            joinFinalToOne(alias: next)
            return true
        }
        return element == nil
    }

    private mutating func joinFinalToOne(alias joined: String) {
        guard let relationship = finalToOne else { return }
        finalToOne = nil
        element = nil
        from += " LEFT JOIN \(relationship.destinationEntity!.layout!.tableName) \(joined) ON \(joined).Z_PK = \(alias).\(relationship.columnName!)"
        alias = joined
        entity = relationship.destinationEntity!
        elementsMayBeNull = true
    }

    /// Adds a condition every element must meet (SUBQUERY's predicate), with the LEFT JOINs it needs.
    mutating func restrict(_ condition: String, joins: String) {
        if !joins.isEmpty { from += " " + joins }
        conditions.append("(\(condition))")
    }

    /// The element value: the attribute or key column the path ends on, else the object's key.
    var elementValue: (column: String, attribute: NSAttributeDescription?) { element ?? ("\(alias).Z_PK", nil) }

    /// `EXISTS (…)`: true when some element meets `condition`.
    func exists(_ condition: String) -> String {
        "EXISTS (SELECT 1 FROM \(from) WHERE \((conditions + ["(\(condition))"]).joined(separator: " AND ")))"
    }

    /// A scalar subquery computing `expression` (an aggregate) over the elements.
    func scalar(_ expression: String) -> String {
        "(SELECT \(expression) FROM \(from) WHERE \(conditions.joined(separator: " AND ")))"
    }
}
