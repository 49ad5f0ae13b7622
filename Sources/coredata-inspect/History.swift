import ArgumentParser
import OpenCoreData

/// `history STORE [--after TOKEN]`: the store's persistent history, one transaction after
/// another with its changes. A transaction's token is its number; `--after` takes one.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the store's persistent history.")

    @OptionGroup var store: StoreArgument
    @Option(help: "Only transactions after this one (a token as this command prints it).") var after: Int64?
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let inspected = try InspectedStore(path: store.store)
        guard inspected.hasHistory else { throw InspectError("The store at \(store.store) keeps no persistent history.") }
        let token = after.map { NSPersistentHistoryToken(transactionNumber: $0, storeID: inspected.storeUUID) }
        let transactions: [[String: Any]] = try inspected.context.performAndWait {
            let result = try inspected.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: token)) as? NSPersistentHistoryResult
            return (result?.result as? [NSPersistentHistoryTransaction] ?? []).map(Self.describe)
        }
        if json {
            print(try DumpedValue.jsonText(transactions))
            return
        }
        for transaction in transactions {
            var header = "transaction \(transaction["token"]!)  \(transaction["timestamp"]!)"
            for key in ["author", "contextName", "bundleID"] { if let value = transaction[key] as? String { header += "  \(key)=\(value)" } }
            print(header)
            for change in transaction["changes"] as? [[String: Any]] ?? [] {
                var line = "  \(change["type"]!) \(change["objectID"]!)"
                if let properties = change["updatedProperties"] as? [String], !properties.isEmpty { line += ": " + properties.joined(separator: ", ") }
                if let tombstone = change["tombstone"] as? [String: Any], !tombstone.isEmpty {
                    line += "  tombstone " + tombstone.keys.sorted().map { "\($0)=\(DumpedValue.text(tombstone[$0]))" }.joined(separator: " ")
                }
                print(line)
            }
        }
        print("\(transactions.count) transactions")
    }

    private static func describe(_ transaction: NSPersistentHistoryTransaction) -> [String: Any] {
        var result: [String: Any] = [
            "token": transaction.transactionNumber, "timestamp": DumpedValue.iso8601(transaction.timestamp),
            "bundleID": transaction.bundleID, "processID": transaction.processID,
        ]
        if let author = transaction.author { result["author"] = author }
        if let name = transaction.contextName { result["contextName"] = name }
        result["changes"] = (transaction.changes ?? []).map { change -> [String: Any] in
            var item: [String: Any] = [
                "type": ["insert", "update", "delete"][min(2, Int(change.changeType.rawValue))],
                "objectID": change.changedObjectID.uriRepresentation().absoluteString,
            ]
            if let properties = change.updatedProperties { item["updatedProperties"] = properties.map(\.name).sorted() }
            if let tombstone = change.tombstone {
                var values: [String: Any] = [:]
                for (key, value) in tombstone { values["\(key.base)"] = DumpedValue.json(value) }
                item["tombstone"] = values
            }
            return item
        }
        return result
    }
}
