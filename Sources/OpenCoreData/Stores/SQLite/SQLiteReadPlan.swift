import GRDB
import GRDBSQLite

/// How to turn the columns of one hierarchy table into the slots of each of its entities; built once
/// per store so that reading a row is a loop over precomputed column indexes.
struct SQLiteHierarchyPlan {
    let table: String
    /// `Z_PK, Z_ENT, Z_OPT, <columns…>` with the table name as qualifier, for SELECT; without
    /// `Z_ENT` for a table of one entity (`soleStoreNumber`), whose every row is of that entity:
    /// a column fewer for SQLite to produce and for the reader to read, each row.
    let selectList: String
    /// The store's number of the table's one entity; nil when the table holds a hierarchy.
    let soleStoreNumber: Int32?
    /// Where `Z_OPT` is in `selectList`: 1 without `Z_ENT`, else 2.
    let versionColumn: Int32
    /// How many columns `selectList` names; a query may select more after them.
    let columnCount: Int32
    /// Per concrete entity (by model entity number), how to fill its slots.
    let entities: [Int32: [ColumnRead]]
    /// The reads of the table's composite attributes, kept alive here for the kinds that refer
    /// to them unretained.
    private let composites: [CompositeReads]

    struct ColumnRead {
        enum Kind {
            case integer, double, decimal, string, date, data(external: Bool), uuid, url
            /// Unmanaged so that the kind, and a row's plan of fills, copy as plain bits (the
            /// model, which holds the attribute, outlives every plan).
            case transformable(Unmanaged<NSAttributeDescription>)
            /// The destination's hierarchy is numbered `destinationNumber...lastNumber`.
            case toOne(entityColumn: Int32, destinationNumber: Int32, lastNumber: Int32)
            /// A composite attribute, read from its leaf columns into one dictionary.
            case composite(Unmanaged<CompositeReads>)
        }
        let slot: Int
        let column: Int32
        let kind: Kind
    }

    /// The leaf columns of one composite attribute.
    final class CompositeReads {
        let leaves: [(path: [String], attribute: NSAttributeDescription, column: Int32, kind: ColumnRead.Kind)]

        init(_ leaves: [(path: [String], attribute: NSAttributeDescription, column: Int32, kind: ColumnRead.Kind)]) {
            self.leaves = leaves
        }
    }

    /// The plan of `root`'s table; `storeNumber` is the store's number of an entity (its Z_ENT).
    init(root: NSEntityDescription, storeNumber: (NSEntityDescription) -> Int32) {
        self.table = root.tableName
        let hierarchy = [root] + ModelLayoutBuilder.descendants(of: root)
        let table = root.tableName
        soleStoreNumber = hierarchy.count == 1 ? storeNumber(root) : nil
        let identity = soleStoreNumber == nil ? ["Z_PK", "Z_ENT", "Z_OPT"] : ["Z_PK", "Z_OPT"]
        let columns = identity + root.tableColumns.map(\.0)
        versionColumn = Int32(identity.count - 1)
        selectList = columns.map { "\(table).\($0)" }.joined(separator: ", ")
        columnCount = Int32(columns.count)
        var index: [String: Int32] = [:]
        for (i, name) in columns.enumerated() { index[name] = Int32(i) }
        var entities: [Int32: [ColumnRead]] = [:]
        var composites: [ObjectIdentifier: CompositeReads] = [:]
        for entity in hierarchy {
            var reads: [ColumnRead] = []
            for property in entity.properties where !property.isTransient {
                if let composite = property as? NSCompositeAttributeDescription {
                    let leaves = composite.storedColumns.compactMap { leaf in
                        index[leaf.column].map { (leaf.path, leaf.attribute, $0, Self.kind(of: leaf.attribute)) }
                    }
                    guard let first = leaves.first else { continue }
                    // Inherited by subentities: one set of reads per composite, not per entity.
                    let shared = composites[ObjectIdentifier(composite)] ?? CompositeReads(leaves)
                    composites[ObjectIdentifier(composite)] = shared
                    reads.append(ColumnRead(slot: property.slot, column: first.2, kind: .composite(Unmanaged.passUnretained(shared))))
                    continue
                }
                guard let columnName = property.columnName, let column = index[columnName] else { continue }
                if let attribute = property as? NSAttributeDescription {
                    reads.append(ColumnRead(slot: property.slot, column: column, kind: Self.kind(of: attribute)))
                } else if let relationship = property as? NSRelationshipDescription {
                    let entityColumn = relationship.entityColumnName.flatMap { index[$0] } ?? -1
                    let numbers = relationship.destinationEntity!.layout!.hierarchyNumbers
                    reads.append(
                        ColumnRead(
                            slot: property.slot, column: column,
                            kind: .toOne(
                                entityColumn: entityColumn, destinationNumber: Int32(numbers.first!),
                                lastNumber: Int32(numbers.last!))))
                }
            }
            entities[Int32(entity.layout!.entityNumber)] = reads
        }
        self.entities = entities
        self.composites = Array(composites.values)
    }

    static func kind(of attribute: NSAttributeDescription) -> ColumnRead.Kind {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
            .integer
        case .doubleAttributeType, .floatAttributeType: .double
        case .decimalAttributeType: .decimal
        case .stringAttributeType: .string
        case .dateAttributeType: .date
        case .binaryDataAttributeType: .data(external: attribute.allowsExternalBinaryDataStorage)
        case .UUIDAttributeType: .uuid
        case .URIAttributeType: .url
        default: .transformable(Unmanaged.passUnretained(attribute))
        }
    }
}

/// Reads one column of the current row of a stepped statement as a slot value.
enum SQLiteColumn {
    static func read(
        _ statement: OpaquePointer, _ column: Int32, _ kind: SQLiteHierarchyPlan.ColumnRead.Kind,
        storeNumbers: (Int32) -> Int32, externalData: (String) -> Data?
    ) -> SlotValue {
        switch kind {
        case .string: return string(statement, column).map(SlotValue.string) ?? .null
        case .integer: return integer(statement, column).map(SlotValue.int) ?? .null
        case .double: return double(statement, column).map(SlotValue.double) ?? .null
        case .date: return double(statement, column).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
        case .composite(let reads):
            let leaves = reads.takeUnretainedValue().leaves.map { leaf in
                (leaf.path, read(statement, leaf.column, leaf.kind, storeNumbers: storeNumbers, externalData: externalData).publicValue(for: leaf.attribute))
            }
            return CompositeValue.slot(fromLeaves: leaves)
        default: break
        }
        let type = sqlite3_column_type(statement, column)
        if type == SQLITE_NULL { return .null }
        switch kind {
        case .string, .integer, .double, .date, .composite: return .null  // read above
        case .decimal:
            if type == SQLITE_INTEGER { return .decimal(Decimal(sqlite3_column_int64(statement, column))) }
            if type == SQLITE_TEXT, let d = Decimal(string: text(statement, column)) { return .decimal(d) }
            return .decimal(Decimal(string: "\(sqlite3_column_double(statement, column))") ?? 0)
        case .url:
            let string = text(statement, column)
            return URL(string: string).map { .url($0) } ?? .string(string)
        case .uuid:
            let data = blob(statement, column)
            guard data.count == 16 else { return .data(data) }
            return .uuid(data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case .data(let external):
            let data = blob(statement, column)
            guard external, let tag = data.first else { return .data(data) }
            if tag == 1 { return .data(data.dropFirst()) }
            if tag == 2 {
                return SQLiteExternalData.fileName(in: data).flatMap(externalData).map { .data($0) } ?? .null
            }
            return .data(data)
        case .transformable(let attribute):
            return .object(AnyBox(ValueTransformerRegistry.decode(blob(statement, column), attribute: attribute.takeUnretainedValue())))
        case .toOne(let entityColumn, let destinationNumber, let lastNumber):
            let key = sqlite3_column_int64(statement, column)
            var number = destinationNumber
            if entityColumn >= 0, sqlite3_column_type(statement, entityColumn) != SQLITE_NULL {
                number = storeNumbers(Int32(sqlite3_column_int(statement, entityColumn)))
                // A damaged file's number of no entity of the destination's hierarchy: the
                // reference leads nowhere, so it reads as no object.
                guard number >= destinationNumber, number <= lastNumber else { return .null }
            }
            return .reference(ObjectReference(entityNumber: number, primaryKey: key))
        }
    }

    /// A `.string` column's text; nil for NULL.
    @inline(__always)
    static func string(_ statement: OpaquePointer, _ column: Int32) -> String? {
        // A NULL has no text: one call fewer than asking the type first.
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
    }

    /// An `.integer` column's value; nil for NULL.
    @inline(__always)
    static func integer(_ statement: OpaquePointer, _ column: Int32) -> Int64? {
        // A NULL reads as 0, and reading it converts nothing, so only a 0 needs its type asked:
        // one call fewer for most numbers.
        let value = sqlite3_column_int64(statement, column)
        return value == 0 && sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : value
    }

    /// A `.double` or `.date` column's value; nil for NULL.
    @inline(__always)
    static func double(_ statement: OpaquePointer, _ column: Int32) -> Double? {
        let value = sqlite3_column_double(statement, column)
        return value == 0 && sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : value
    }

    static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    static func blob(_ statement: OpaquePointer, _ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}

/// Binds slot values to statement parameters.
enum SQLiteBind {
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bind(_ value: SlotValue, attribute: NSAttributeDescription?, to statement: OpaquePointer, at index: Int32) {
        switch value {
        case .null, .unloaded, .toMany, .toOne, .invalid, .objectID, .objectIDs: sqlite3_bind_null(statement, index)
        case .int(let v): sqlite3_bind_int64(statement, index, v)
        case .bool(let v): sqlite3_bind_int64(statement, index, v ? 1 : 0)
        case .double(let v): sqlite3_bind_double(statement, index, v)
        case .date(let v): sqlite3_bind_double(statement, index, v.timeIntervalSinceReferenceDate)
        case .decimal(let v): sqlite3_bind_double(statement, index, NSDecimalNumber(decimal: v).doubleValue)
        case .string(let v): bindText(v, statement, index)
        case .url(let v): bindText(v.absoluteString, statement, index)
        case .uuid(let v):
            _ = withUnsafeBytes(of: v.uuid) { sqlite3_bind_blob(statement, index, $0.baseAddress, 16, transient) }
        case .data(var v):
            if attribute?.allowsExternalBinaryDataStorage == true { v.insert(1, at: 0) }
            _ = v.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
        case .object(let box):
            if let data = box.value as? Data {
                _ = data.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
            } else if let data = ValueTransformerRegistry.encode(box.value, attribute: attribute) {
                _ = data.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
            } else {
                sqlite3_bind_null(statement, index)
            }
        case .reference(let reference): sqlite3_bind_int64(statement, index, reference.primaryKey)
        }
    }

    /// Binds a value read from the database back as it was stored.
    static func bind(_ value: DatabaseValue, to statement: OpaquePointer, at index: Int32) {
        switch value.storage {
        case .null: sqlite3_bind_null(statement, index)
        case .int64(let number): sqlite3_bind_int64(statement, index, number)
        case .double(let number): sqlite3_bind_double(statement, index, number)
        case .string(let text): bindText(text, statement, index)
        case .blob(let data): _ = data.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
        }
    }

    static func bindText(_ string: String, _ statement: OpaquePointer, _ index: Int32) {
        var string = string
        string.withUTF8 { buffer in
            _ = buffer.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient)
            }
        }
    }
}
