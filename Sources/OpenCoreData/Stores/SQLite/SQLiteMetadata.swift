import Foundation
import GRDB

/// The store metadata in `Z_METADATA` (docs/sqlite-format.md §2.2): a binary property list plus the store UUID.
enum SQLiteMetadata {
    /// The metadata Core Data writes for a SQLite store of `entities`: every store's, and the
    /// auto-vacuum level SQLite stores record.
    static func make(for model: NSManagedObjectModel, entities: [NSEntityDescription], uuid: String) -> [String: Any] {
        var metadata = StoreMetadata.make(for: model, entities: entities, uuid: uuid, type: NSSQLiteStoreType)
        metadata["_NSAutoVacuumLevel"] = "2"
        return metadata
    }

    /// The `Z_PLIST` bytes and `Z_UUID` of the metadata row, or nil when there is no such row or
    /// its plist is not a blob. Read as plain database values: GRDB's typed subscripts stop the
    /// program on a value of another type, which a damaged file can hold.
    static func row(in db: Database) throws -> (plist: Data, uuid: String)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1"),
            let plist = Data.fromDatabaseValue(row["Z_PLIST"] as DatabaseValue)
        else { return nil }
        return (plist, String.fromDatabaseValue(row["Z_UUID"] as DatabaseValue) ?? "")
    }
}
