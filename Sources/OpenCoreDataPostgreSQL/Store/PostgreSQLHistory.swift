import OpenCoreData

/// Persistent history on a PostgreSQL store, in the shape Apple's SQLite stores keep it
/// (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`, numbered from `Z_PRIMARYKEY` rows 16001-16003),
/// written in the transaction that wrote the data. Transaction numbers are taken under the row
/// lock of their `Z_PRIMARYKEY` row, held to the commit, so numbers rise in commit order across
/// every process: a token read after a notification selects exactly the later transactions.
enum PostgreSQLHistory {
    /// The history tables, with `tombstones` tombstone columns, and their `Z_PRIMARYKEY` rows. A
    /// tombstone column holds values of different attributes in different rows, so it keeps each
    /// as text (`tombstoneText`). Of Apple's indexes on `ATRANSACTION` only the timestamp's, for
    /// history fetched by date: each index slows every write that records history.
    static func statements(tombstones: Int) -> [String] {
        let keys = HistoryEntityNumbers.primaryKeyRows.map { "(\($0.0), '\($0.1)', 0, 0)" }.joined(separator: ", ")
        return HistoryTableLayout.createTables(tombstones: tombstones, type: type) + [
            "CREATE INDEX ATRANSACTION_ZTIMESTAMP_INDEX ON ATRANSACTION (ZTIMESTAMP)",
            "CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME)",
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES \(keys) ON CONFLICT DO NOTHING",
        ]
    }

    private static func type(_ kind: HistoryTableLayout.Kind) -> String {
        switch kind {
        case .key: "int8 PRIMARY KEY"
        case .integer: "int8"
        case .real: "float8"
        case .text, .tombstone: "text"
        case .blob: "bytea"
        }
    }

    /// Creates the tables when the store's schema lacks them, inside the caller's transaction.
    static func prepare(_ session: any PostgreSQLSession, entities: [NSEntityDescription]) throws {
        let exists = try session.run("SELECT to_regclass('atransaction') IS NOT NULL", []).rows.first?.first == .boolean(true)
        guard !exists else { return }
        for sql in statements(tombstones: HistoryTombstones.columnCount(for: entities)) { _ = try session.run(sql, []) }
    }

    // MARK: Writing

    /// Writes `draft` with its changes; `tombstones` holds, by change index, the preserved values
    /// of deleted rows; `names` knows the keys of names written before. Returns the transaction's
    /// number, or nil when nothing changed.
    ///
    /// Three round trips however large the save: the keys of the transaction and of its changes
    /// from one UPDATE, the names' keys (none when all are known), and the transaction's row in
    /// the same statement as the first of its changes.
    @discardableResult
    static func write(
        _ draft: HistoryTransactionDraft, tombstones: [Int: [PostgreSQLValue]], names: PostgreSQLHistoryNames, on session: any PostgreSQLSession
    ) throws -> Int64? {
        guard !draft.changes.isEmpty else { return nil }
        let (number, first) = try allocateTransaction(changes: draft.changes.count, on: session)
        let transaction: [PostgreSQLValue] = [
            .integer(number), .integer(HistoryEntityNumbers.transaction), try intern(draft.author, names, session), try intern(HistoryProcess.bundleID, names, session),
            try intern(draft.contextName, names, session), try intern(HistoryProcess.processName, names, session),
            .real(Date().timeIntervalSinceReferenceDate),
        ]
        let insertTransaction =
            "WITH written AS (INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP) VALUES ($1, $2, NULL, $3, $4, $5, $6, $7)) "
        let width = tombstones.values.map(\.count).max() ?? 0
        // Many changes to a statement: a save of 100,000 objects writes 100,000 rows here.
        let perRow = 7 + width
        let perStatement = max(1, 60_000 / perRow)
        let tombstoneNames = (0..<width).map { ", ZTOMBSTONE\($0)" }.joined()
        var orders: [ObjectIdentifier: [NSPropertyDescription]] = [:]
        var start = 0
        while start < draft.changes.count {
            let end = min(start + perStatement, draft.changes.count)
            var binds: [PostgreSQLValue] = start == 0 ? transaction : []
            var tuples: [String] = []
            for index in start..<end {
                let change = draft.changes[index]
                var columns: PostgreSQLValue = .null
                if change.changeType == .update {
                    let slots = change.changedSlots ?? Array(0..<change.entity.properties.count)
                    let properties = change.entity.layout?.properties ?? change.entity.properties
                    let names = Set(slots.compactMap { $0 < properties.count ? properties[$0].name : nil })
                    let order = orders[ObjectIdentifier(change.entity)] ?? HistoryColumnBitmap.bitOrder(of: change.entity)
                    orders[ObjectIdentifier(change.entity)] = order
                    columns = .bytes(HistoryColumnBitmap.encode(names, order: order))
                }
                let values = tombstones[index] ?? []
                let row: [PostgreSQLValue] = [
                    .integer(first + Int64(index)), .integer(HistoryEntityNumbers.change), .integer(Int64(change.changeType.rawValue)),
                    .integer(Int64(change.entity.layout!.entityNumber)), .integer(change.primaryKey), .integer(number), columns,
                ] + (0..<width).map { $0 < values.count ? values[$0] : .null }
                let marks = row.indices.map { "$\(binds.count + $0 + 1)" }
                binds += row
                tuples.append("(\(marks[0]), \(marks[1]), NULL, " + marks[2...].joined(separator: ", ") + ")")
            }
            _ = try session.run(
                (start == 0 ? insertTransaction : "")
                    + "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS\(tombstoneNames)) VALUES "
                    + tuples.joined(separator: ", "), binds)
            start = end
        }
        return number
    }

    /// The key of `name` in `ATRANSACTIONSTRING`, added when new; NULL for no name.
    private static func intern(_ name: String?, _ names: PostgreSQLHistoryNames, _ session: any PostgreSQLSession) throws -> PostgreSQLValue {
        guard let name else { return .null }
        if let key = names.key(of: name, on: session) { return .integer(key) }
        let known = "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = $1"
        var found = try session.run(known, [.text(name)]).rows.first?.first
        if found == nil {
            let key = try allocate(HistoryEntityNumbers.string, count: 1, on: session)
            // Another process may add the same name meanwhile: the unique index keeps one.
            _ = try session.run(
                "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES ($1, $2, NULL, $3) ON CONFLICT DO NOTHING",
                [.integer(key), .integer(HistoryEntityNumbers.string), .text(name)])
            found = try session.run(known, [.text(name)]).rows.first?.first
        }
        guard let found, let key = PostgreSQLValues.integer(found) else { return .null }
        names.stage(name, key: key, on: session)
        return .integer(key)
    }

    /// The transaction's number and the first of `changes` change keys, from one statement. The
    /// transaction row's lock, held to the commit, is what orders numbers by commit.
    private static func allocateTransaction(changes: Int, on session: any PostgreSQLSession) throws -> (number: Int64, firstChange: Int64) {
        let result = try session.run(
            "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + CASE Z_ENT WHEN $1 THEN 1 ELSE $2 END WHERE Z_ENT IN ($1, $3) RETURNING Z_ENT, Z_MAX",
            [.integer(HistoryEntityNumbers.transaction), .integer(Int64(changes)), .integer(HistoryEntityNumbers.change)])
        var number: Int64?
        var lastChange: Int64?
        for row in result.rows where row.count == 2 {
            switch PostgreSQLValues.integer(row[0]) {
            case HistoryEntityNumbers.transaction?: number = PostgreSQLValues.integer(row[1])
            case HistoryEntityNumbers.change?: lastChange = PostgreSQLValues.integer(row[1])
            default: break
            }
        }
        guard let number, let lastChange else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The PostgreSQL store can't number new history rows: its Z_PRIMARYKEY lacks rows 16001 and 16002.")
        }
        return (number, lastChange - Int64(changes) + 1)
    }

    private static func allocate(_ entity: Int64, count: Int, on session: any PostgreSQLSession) throws -> Int64 {
        let result = try session.run("UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + $1 WHERE Z_ENT = $2 RETURNING Z_MAX", [.integer(Int64(count)), .integer(entity)])
        guard let last = result.rows.first?.first.flatMap(PostgreSQLValues.integer) else {
            throw CoreDataError.make(NSPersistentStoreSaveError, "The PostgreSQL store can't number new history rows: its Z_PRIMARYKEY has no row \(entity).")
        }
        return last - Int64(count) + 1
    }

    // MARK: Tombstones

    /// A preserved value as a tombstone column keeps it.
    static func tombstoneText(_ value: PostgreSQLValue) -> PostgreSQLValue {
        switch value {
        case .null: .null
        case .integer(let number): .text(String(number))
        case .real(let number): .text(String(number))
        case .boolean(let flag): .text(flag ? "1" : "0")
        case .text(let text): .text(text)
        case .bytes(let data): .text(data.base64EncodedString())
        }
    }

    /// A tombstone column's text as the public value of `attribute`.
    static func tombstoneValue(_ text: String, as attribute: NSAttributeDescription) -> Any? {
        switch attribute.attributeType {
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: Int64(text).map { NSNumber(value: $0) }
        case .booleanAttributeType: Int64(text).map { $0 != 0 }
        case .doubleAttributeType, .floatAttributeType: Double(text)
        case .dateAttributeType: Double(text).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .decimalAttributeType: NSDecimalNumber(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case .stringAttributeType: text
        case .URIAttributeType: URL(string: text) ?? text
        case .UUIDAttributeType: UUID(uuidString: text)
        default: Data(base64Encoded: text)
        }
    }

    // MARK: Reading

    /// The condition on `ATRANSACTION t` that selects `boundary`'s transactions.
    static func condition(_ boundary: HistoryBoundary) -> (String, [PostgreSQLValue]) {
        switch boundary {
        case .all: ("TRUE", [])
        case .afterNumber(let number): ("t.Z_PK > $1", [.integer(number)])
        case .beforeNumber(let number): ("t.Z_PK < $1", [.integer(number)])
        case .afterDate(let date): ("t.ZTIMESTAMP > $1", [.real(date.timeIntervalSinceReferenceDate)])
        case .beforeDate(let date): ("t.ZTIMESTAMP < $1", [.real(date.timeIntervalSinceReferenceDate)])
        }
    }

    /// The transactions `boundary` selects, with their changes handed to `change` when asked
    /// (`NSPersistentStore.fetchHistory`); `tombstones` is how many tombstone columns `ACHANGE`
    /// has (`prepare` made them for the same model).
    static func read(
        _ boundary: HistoryBoundary, withChanges: Bool, tombstones: Int, on session: any PostgreSQLSession,
        entity: (Int32) -> NSEntityDescription?, change: (Int, HistoryChangeRecord) -> Void
    ) throws -> [HistoryTransactionRecord] {
        let (condition, binds) = condition(boundary)
        func name(_ field: String) -> String { "(SELECT ZNAME FROM ATRANSACTIONSTRING WHERE Z_PK = t.Z\(field)TS)" }
        let sql = "SELECT t.Z_PK, t.ZTIMESTAMP, \(name("AUTHOR")), \(name("BUNDLEID")), \(name("CONTEXTNAME")), \(name("PROCESSID")) FROM ATRANSACTION t WHERE \(condition) ORDER BY t.Z_PK"
        func text(_ value: PostgreSQLValue) -> String? { if case .text(let text) = value { text } else { nil } }
        let transactions = try session.run(sql, binds).rows.map { row in
            let timestamp: Double = if case .real(let seconds) = row[1] { seconds } else { 0 }
            return HistoryTransactionRecord(
                number: PostgreSQLValues.integer(row[0]) ?? 0, timestamp: Date(timeIntervalSinceReferenceDate: timestamp),
                author: text(row[2]), bundleID: text(row[3]), processID: text(row[5]), contextName: text(row[4]))
        }
        guard withChanges, !transactions.isEmpty else { return transactions }
        var positions: [Int64: Int] = [:]
        for (position, transaction) in transactions.enumerated() { positions[transaction.number] = position }
        let tombstoneList = (0..<tombstones).map { ", c.ZTOMBSTONE\($0)" }.joined()
        let changes = try session.run(
            "SELECT c.Z_PK, c.ZTRANSACTIONID, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZCOLUMNS\(tombstoneList) FROM ACHANGE c WHERE c.ZTRANSACTIONID IN (SELECT t.Z_PK FROM ATRANSACTION t WHERE \(condition)) ORDER BY c.Z_PK",
            binds)
        for row in changes.rows {
            guard let transaction = PostgreSQLValues.integer(row[1]), let position = positions[transaction] else { continue }
            let type = NSPersistentHistoryChangeType(rawValue: Int(PostgreSQLValues.integer(row[2]) ?? 0)) ?? .update
            let number = Int32(truncatingIfNeeded: PostgreSQLValues.integer(row[3]) ?? 0)
            var tombstone: [String: Any]?
            if type == .delete, tombstones > 0, let changed = entity(number) {
                var values: [String: Any] = [:]
                for (offset, column) in HistoryTombstones.columns(of: changed).enumerated() where 6 + offset < row.count {
                    if let stored = text(row[6 + offset]), let value = tombstoneValue(stored, as: column.attribute) {
                        HistoryTombstones.add(value, for: column, to: &values)
                    }
                }
                tombstone = values.isEmpty ? nil : values
            }
            let columns: Data? = if case .bytes(let data) = row[5] { data } else { nil }
            change(position, HistoryChangeRecord(
                changeID: PostgreSQLValues.integer(row[0]) ?? 0, entityNumber: number, primaryKey: PostgreSQLValues.integer(row[4]) ?? 0,
                changeType: type, columns: columns, tombstone: tombstone))
        }
        return transactions
    }
}
