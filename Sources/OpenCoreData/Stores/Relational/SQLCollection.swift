import Foundation

/// The elements a to-many key path reaches, as the FROM and WHERE of a correlated subquery:
/// `books.tags.label` from an author is the labels of the tags of the author's books.
///
/// The rows are the elements the in-memory evaluator sees when it flattens the key path: one per
/// object reached through each to-many (duplicates kept), and one NULL element for an object whose
/// to-one on the way is nil. Every step after the first is a LEFT JOIN, with a condition that drops
/// the empty to-many of a non-nil object but keeps the NULL row of a nil one.
package struct SQLCollection {
    private(set) var from: SQLFragment
    private(set) var conditions: [SQLFragment]
    /// The alias and entity of the objects reached so far.
    private(set) var alias: String
    private(set) var entity: NSEntityDescription
    /// When the path ends on a to-one, its key column stands for the element (no join needed);
    /// when it ends on an attribute, its column. Nil: the objects at `alias` are the elements.
    private(set) var element: (SQLFragment, SQLValueKind)?
    private var finalToOne: NSRelationshipDescription?
    /// Whether an object at `alias` may be missing (a nil to-one on the way).
    private(set) var elementsMayBeNull = false
    /// The outer key the collection hangs from, when it may be NULL: the in-memory value of the
    /// whole key path is then nil rather than an empty collection.
    let nullableSource: SQLFragment?
    private let names: SQLAliases

    /// The destinations of `relationship` (to-many) of the object whose key is `source.Z_PK`.
    init(_ relationship: NSRelationshipDescription, source: String, sourceMayBeNull: Bool, names: SQLAliases) throws {
        self.names = names
        let table = relationship.destinationEntity!.tableName
        let next = names.next("S")
        if let inverse = relationship.inverseRelationship, !inverse.isToMany, let foreignKey = inverse.columnName {
            from = SQLFragment(raw: "\(table) \(next)")
            conditions = [SQLFragment(raw: "\(next).\(foreignKey) = \(source).Z_PK")]
        } else if let join = relationship.joinTable {
            let pairs = next + "M"
            from = SQLFragment(raw: "\(join.name) \(pairs) JOIN \(table) \(next) ON \(next).Z_PK = \(pairs).\(join.destinationColumn)")
            conditions = [SQLFragment(raw: "\(pairs).\(join.sourceColumn) = \(source).Z_PK")]
        } else {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError, "The to-many relationship \(relationship.name) has no storage to query.")
        }
        alias = next
        entity = relationship.destinationEntity!
        nullableSource = sourceMayBeNull ? SQLFragment(raw: "\(source).Z_PK") : nil
    }

    /// Follows `relationship` from the objects reached so far.
    mutating func follow(_ relationship: NSRelationshipDescription) throws {
        joinFinalToOne()
        let previous = alias
        let destination = relationship.destinationEntity!
        let table = destination.tableName
        let next = names.next("S")
        if !relationship.isToMany {
            from += SQLFragment(raw: " LEFT JOIN \(table) \(next) ON \(next).Z_PK = \(previous).\(relationship.columnName!)")
        } else if let inverse = relationship.inverseRelationship, !inverse.isToMany, let foreignKey = inverse.columnName {
            from += SQLFragment(raw: " LEFT JOIN \(table) \(next) ON \(next).\(foreignKey) = \(previous).Z_PK")
            conditions.append(SQLFragment(raw: "(\(previous).Z_PK IS NULL OR \(next).Z_PK IS NOT NULL)"))
        } else if let join = relationship.joinTable {
            let pairs = next + "M"
            from += SQLFragment(
                raw: " LEFT JOIN \(join.name) \(pairs) ON \(pairs).\(join.sourceColumn) = \(previous).Z_PK"
                    + " LEFT JOIN \(table) \(next) ON \(next).Z_PK = \(pairs).\(join.destinationColumn)")
            conditions.append(SQLFragment(raw: "(\(previous).Z_PK IS NULL OR \(next).Z_PK IS NOT NULL)"))
        } else {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError, "The to-many relationship \(relationship.name) has no storage to query.")
        }
        alias = next
        entity = destination
        elementsMayBeNull = true
    }

    /// Ends the path on a to-one: its key column is the element.
    mutating func end(onToOne relationship: NSRelationshipDescription) {
        joinFinalToOne()
        element = (SQLFragment(raw: "\(alias).\(relationship.columnName!)"), .object(relationship.destinationEntity!))
        finalToOne = relationship
    }

    /// Ends the path on an attribute's column, or a composite leaf's (`column` then names it).
    mutating func end(onAttribute attribute: NSAttributeDescription, column: String? = nil) {
        joinFinalToOne()
        element = (SQLFragment(raw: "\(alias).\(column ?? attribute.columnName!)"), .attribute(attribute))
    }

    /// Makes the elements objects with an alias (for SUBQUERY's predicate): joins a final to-one.
    /// False when the elements are attribute values.
    mutating func elementsAreObjects() -> Bool {
        if finalToOne != nil {
            joinFinalToOne()
            return true
        }
        return element == nil
    }

    private mutating func joinFinalToOne() {
        guard let relationship = finalToOne else { return }
        finalToOne = nil
        element = nil
        let next = names.next("S")
        let table = relationship.destinationEntity!.tableName
        from += SQLFragment(raw: " LEFT JOIN \(table) \(next) ON \(next).Z_PK = \(alias).\(relationship.columnName!)")
        alias = next
        entity = relationship.destinationEntity!
        elementsMayBeNull = true
    }

    /// Adds a condition every element must meet (SUBQUERY's predicate), with LEFT JOINs it needs.
    mutating func restrict(_ condition: SQLFragment, joins: SQLFragment) {
        from += joins
        conditions.append("(\(condition))")
    }

    /// The element value: the attribute or key column the path ends on, else the object's key.
    var elementValue: (SQLFragment, SQLValueKind) { element ?? (SQLFragment(raw: "\(alias).Z_PK"), .object(entity)) }

    /// `EXISTS (…)`: 1 when some element meets `condition`.
    func exists(_ condition: SQLFragment?) -> SQLFragment {
        "EXISTS (SELECT 1 FROM \(from) WHERE \(SQLFragment.joined(conditions + (condition.map { ["(\($0))"] } ?? []), separator: " AND ")))"
    }

    /// A scalar subquery computing `expression` (an aggregate) over the elements.
    func scalar(_ expression: SQLFragment) -> SQLFragment {
        "(SELECT \(expression) FROM \(from) WHERE \(SQLFragment.joined(conditions, separator: " AND ")))"
    }
}
