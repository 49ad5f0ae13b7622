/// The LEFT JOINs one FROM clause needs to follow to-one key paths (`owner.name`), one alias per
/// relationship followed from a given alias, so that `owner.name` and `owner.city` share a join.
package struct SQLJoins {
    package let names: SQLAliases
    private var aliases: [String: String] = [:]
    package private(set) var sql: SQLFragment = ""

    package init(names: SQLAliases) { self.names = names }

    /// The alias of the destination of the to-one `relationship` followed from `alias`.
    package mutating func join(_ relationship: NSRelationshipDescription, from alias: String) -> String {
        let key = alias + "." + relationship.name
        if let existing = aliases[key] { return existing }
        let next = names.next("J")
        let table = relationship.destinationEntity!.tableName
        sql += SQLFragment(raw: " LEFT JOIN \(table) \(next) ON \(next).Z_PK = \(alias).\(relationship.columnName!)")
        aliases[key] = next
        return next
    }
}
