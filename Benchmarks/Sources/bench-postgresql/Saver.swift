import BenchmarkSupport
import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL
import PostgresNIO

/// One app instance's save of one new item, the unit the writers and the latency count: either an
/// OpenCoreData context's insert and save (history recorded, remote changes announced), or the raw
/// transaction that does the same work: bump the key, insert the row, notify the channel.
enum Saver {
    case raw(PostgresConnection)
    case openCoreData(NSPersistentContainer, NSManagedObjectContext)

    /// The channel raw savers notify, for the raw latency's listener.
    static let rawChannel = "bench_remote"

    /// What a store shared by processes is opened with: history, and notifications of remote changes.
    static var sharedStoreOptions: [String: NSObject] {
        [
            NSPersistentHistoryTrackingKey: true as NSNumber,
            NSPersistentStoreRemoteChangeNotificationPostOptionKey: true as NSNumber,
        ]
    }

    static func open(way: String, server: ServerAddress, schema: String) async throws -> Saver {
        if way == "raw" { return .raw(try await RawWay.connect(server, schema: schema)) }
        let container = try OpenCoreDataWay.container(url: server.storeURL(schema: schema), options: sharedStoreOptions)
        return .openCoreData(container, container.newBackgroundContext())
    }

    func save(name: String) async throws {
        switch self {
        case .raw(let connection):
            try await connection.withTransaction(logger: RawWay.logger) { connection in
                var key: Int64 = 0
                for try await value in try await connection.query(
                    "UPDATE z_primarykey SET z_max = z_max + 1 WHERE z_ent = 1 RETURNING z_max", logger: RawWay.logger
                ).decode(Int64.self) { key = value }
                _ = try await connection.execute(
                    InsertItem(primaryKey: key, name: name, createdAt: Date().timeIntervalSinceReferenceDate, done: 0), logger: RawWay.logger)
                try await connection.query("SELECT pg_notify(\(Self.rawChannel), '')", logger: RawWay.logger)
            }
        case .openCoreData(_, let context):
            try context.performAndWait {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue(name, forKey: "name")
                item.setValue(Date(), forKey: "createdAt")
                try context.save()
                context.reset()
            }
        }
    }

    func close() async throws {
        switch self {
        case .raw(let connection): try await connection.close()
        case .openCoreData(let container, _):
            let coordinator = container.persistentStoreCoordinator
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
    }
}
