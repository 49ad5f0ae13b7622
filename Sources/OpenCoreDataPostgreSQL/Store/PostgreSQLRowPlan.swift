import OpenCoreData

/// How the columns of one hierarchy table become the slots of each of its entities, built once
/// per store: `Z_PK, Z_ENT, Z_OPT` and then the table's columns, in the order `selectList` names them.
struct PostgreSQLRowPlan {
    let table: String
    /// The columns selected for a row with values, qualified by `alias`.
    let columns: [String]
    /// Per concrete entity (by entity number), what fills each slot.
    let fills: [Int32: [Fill]]

    enum Fill {
        /// A to-many relationship, loaded when first used.
        case unloaded
        /// A transient property: not stored.
        case null
        case attribute(column: Int, NSAttributeDescription)
        /// A composite attribute: its leaves' columns, each with its path in the dictionary.
        case composite([(path: [String], column: Int, attribute: NSAttributeDescription)])
        /// A to-one: the key column and, when the destination has subentities, its entity column.
        case toOne(column: Int, entityColumn: Int?, destination: Int32, last: Int32)
    }

    init(root: NSEntityDescription) {
        table = root.tableName
        columns = ["Z_PK", "Z_ENT", "Z_OPT"] + root.tableColumns.map(\.0)
        var index: [String: Int] = [:]
        for (i, name) in columns.enumerated() { index[name] = i }
        var fills: [Int32: [Fill]] = [:]
        for entity in [root] + ModelLayoutBuilder.descendants(of: root) {
            let properties = entity.layout!.properties
            var plan = [Fill](repeating: .unloaded, count: properties.count)
            for property in properties {
                if property.isTransient {
                    plan[property.slot] = .null
                } else if let composite = property as? NSCompositeAttributeDescription {
                    plan[property.slot] = .composite(composite.storedColumns.compactMap { leaf in
                        index[leaf.column].map { (leaf.path, $0, leaf.attribute) }
                    })
                } else if let attribute = property as? NSAttributeDescription, let column = attribute.columnName.flatMap({ index[$0] }) {
                    plan[property.slot] = .attribute(column: column, attribute)
                } else if let relationship = property as? NSRelationshipDescription, let column = relationship.columnName.flatMap({ index[$0] }) {
                    let numbers = relationship.destinationEntity!.layout!.hierarchyNumbers
                    plan[property.slot] = .toOne(
                        column: column, entityColumn: relationship.entityColumnName.flatMap { index[$0] },
                        destination: Int32(numbers.first!), last: Int32(numbers.last!))
                }
            }
            fills[Int32(entity.layout!.entityNumber)] = plan
        }
        self.fills = fills
    }

    /// `alias.Z_PK, alias.Z_ENT, …` for a SELECT.
    func selectList(_ alias: String, values: Bool) -> String {
        (values ? columns : ["Z_PK", "Z_ENT"]).map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// The store rows the result rows hold (selected by `selectList`), their values written into
    /// storages shared by many rows, as the SQLite store's are (`SlotRowBuilder`); a row whose entity
    /// number is no entity of this table (a table written by hand) is left out.
    func rows(_ results: [[PostgreSQLValue]], withValues: Bool) -> [StoreRow] {
        let builder = SlotRowBuilder()
        return results.compactMap { row($0, withValues: withValues, builder: builder) }
    }

    private func row(_ values: [PostgreSQLValue], withValues: Bool, builder: SlotRowBuilder) -> StoreRow? {
        guard values.count >= 2, let key = PostgreSQLValues.integer(values[0]), let number = PostgreSQLValues.integer(values[1]),
            let fills = fills[Int32(truncatingIfNeeded: number)]
        else { return nil }
        guard withValues, values.count >= columns.count else {
            return StoreRow(entityNumber: Int32(number), primaryKey: key, version: 0, values: nil)
        }
        let version = PostgreSQLValues.integer(values[2]) ?? 0
        builder.beginRow(width: fills.count)
        for fill in fills {
            switch fill {
            case .unloaded: builder.append(.unloaded)
            case .null: builder.append(.null)
            case .attribute(let column, let attribute): builder.append(PostgreSQLValues.slot(values[column], attribute: attribute))
            case .composite(let leaves):
                builder.append(CompositeValue.slot(fromLeaves: leaves.lazy.map { leaf in
                    (leaf.path, PostgreSQLValues.slot(values[leaf.column], attribute: leaf.attribute).publicValue(for: leaf.attribute))
                }))
            case .toOne(let column, let entityColumn, let destination, let last):
                builder.append(Self.reference(values, column, entityColumn, destination, last))
            }
        }
        let slots = builder.endRow()
        return StoreRow(entityNumber: Int32(number), primaryKey: key, version: version, values: slots)
    }

    /// A to-one's slot: the destination's key and entity number, or nil when the stored number is
    /// no entity of the destination's hierarchy.
    private static func reference(_ values: [PostgreSQLValue], _ column: Int, _ entityColumn: Int?, _ destination: Int32, _ last: Int32) -> SlotValue {
        guard let key = PostgreSQLValues.integer(values[column]) else { return .null }
        var number = destination
        if let entityColumn, let stored = PostgreSQLValues.integer(values[entityColumn]) {
            number = Int32(truncatingIfNeeded: stored)
            guard number >= destination, number <= last else { return .null }
        }
        return .reference(ObjectReference(entityNumber: number, primaryKey: key))
    }
}
