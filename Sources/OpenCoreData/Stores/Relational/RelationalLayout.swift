/// Where a model's objects live in a relational store, as Core Data lays them out
/// (docs/sqlite-format.md §3, §5): one table per entity hierarchy, named after its root; a column
/// per persistent attribute and to-one relationship, with the destination's entity number beside a
/// to-one whose destination has subentities and a `Z_FOK_` position beside a to-one whose inverse is
/// ordered; a join table per many-to-many.
///
/// Derived once per model, when the model is frozen, by `RelationalLayoutBuilder`, and read by both
/// SQL stores and their migrations: the model classes hold no table or column name.
package final class RelationalLayout: Sendable {
    /// Where one property's values live; `nil` fields for what the property does not have.
    package struct Storage: Sendable {
        /// The column of an attribute or a to-one relationship.
        package var column: String?
        /// `Z<n>_<NAME>`: the destination's entity number, for a to-one whose destination has
        /// subentities (§5.1).
        package var entityColumn: String?
        /// `Z_FOK_<NAME>`: the object's position in its ordered inverse to-many (§5.3).
        package var orderColumn: String?
        /// The join table of a to-many without a to-one inverse (§5.2).
        package var joinTable: JoinTable?
        /// The leaf columns of a composite attribute, which has no column of its own (§3).
        package var elements: [ElementColumn]?
    }

    /// One leaf of a composite attribute: where it is in the composite's dictionary and its column.
    package struct ElementColumn: Sendable {
        /// The element names from the composite down to the leaf (`["location", "latitude"]`).
        package let path: [String]
        /// The leaf's description, whose type the column holds.
        package let attribute: NSAttributeDescription
        /// `Z` + the leaf's name, upper-cased (made unique in its table like any column).
        package let column: String
    }

    /// Per entity, by entity number - 1: the hierarchy's table.
    let tableNames: [String]
    /// Per entity, by entity number - 1: the hierarchy table's columns after Z_PK, Z_ENT and
    /// Z_OPT, as (name, SQL type), in the order Core Data declares them.
    let tableColumns: [[(name: String, type: String)]]
    /// Per entity, by entity number - 1, then by property slot.
    let storage: [[Storage]]

    init(tableNames: [String], tableColumns: [[(name: String, type: String)]], storage: [[Storage]]) {
        self.tableNames = tableNames
        self.tableColumns = tableColumns
        self.storage = storage
    }
}

/// A many-to-many join table, seen from one of its two relationships.
package struct JoinTable: Sendable {
    /// `Z_<n><RELATIONSHIP>`.
    package let name: String
    /// The column holding the primary key of this relationship's source object.
    package let sourceColumn: String
    /// The column holding the primary key of the destination object.
    package let destinationColumn: String
    /// Whether this side owns the table, i.e. its columns come first in the DDL.
    package let isOwner: Bool
    /// `Z_FOK_<n><REL>`: each destination's position in the source's list, when this side is
    /// ordered (§5.3): `Z_FOK_` and the destination column's name after its `Z_`.
    package let orderColumn: String?
    /// The inverse relationship's order column, when the inverse is ordered.
    package let inverseOrderColumn: String?

    /// The table's order columns, this side's first.
    package var orderColumns: [String] { [orderColumn, inverseOrderColumn].compactMap { $0 } }
}

// The layout seen from the model's objects: what the stores ask of an entity or a property. Each
// answer is two array reads in the model's layout; plans that run per row read them once.
extension NSEntityDescription {
    /// `Z` + the root entity's name, upper-cased: the table of this entity's hierarchy.
    package var tableName: String {
        managedObjectModel.relationalLayout!.tableNames[layout!.entityNumber - 1]
    }

    /// The hierarchy table's columns after Z_PK, Z_ENT and Z_OPT, as (name, SQL type).
    package var tableColumns: [(name: String, type: String)] {
        managedObjectModel.relationalLayout!.tableColumns[layout!.entityNumber - 1]
    }
}

extension NSPropertyDescription {
    /// Where this property's values live in a frozen model's tables.
    package var storage: RelationalLayout.Storage? {
        guard let entity, let number = entity.layout?.entityNumber, slot >= 0,
            let layout = entity.managedObjectModel?.relationalLayout
        else { return nil }
        return layout.storage[number - 1][slot]
    }

    /// The column of this property in its hierarchy's table (attributes and to-one relationships
    /// only; `nil` for the others, for composites, and before the model is frozen).
    package var columnName: String? { storage?.column }
}

extension NSAttributeDescription {
    /// The columns holding this attribute's value: its own column, or a composite's leaf columns;
    /// each with the path of element names to its value (empty for a plain attribute) and the
    /// description of the value it holds.
    package var storedColumns: [RelationalLayout.ElementColumn] {
        guard let storage else { return [] }
        if let column = storage.column { return [.init(path: [], attribute: self, column: column)] }
        return storage.elements ?? []
    }
}

extension NSRelationshipDescription {
    /// `Z<n>_<NAME>`, present when the destination has subentities (§5.1).
    package var entityColumnName: String? { storage?.entityColumn }
    /// `Z_FOK_<NAME>`, on a to-one whose inverse is an ordered to-many (§5.3).
    package var orderColumnName: String? { storage?.orderColumn }
    /// For a to-many without a to-one inverse, the join table that holds its pairs (§5.2).
    package var joinTable: JoinTable? { storage?.joinTable }
}
