import BenchmarkSupport
import Foundation
import GRDB
import GRDBSQLite
import OpenCoreData

/// Issue 23's figures: a lightweight migration of every item of the data set that adds a column
/// (done with `ALTER TABLE … ADD COLUMN`) and one that drops a column (a table rebuild), each
/// against raw SQLite doing the same by hand (the schema change and the metadata row rewritten,
/// in one transaction) and GRDB's migrator (`alter(table:)`: `ADD COLUMN`, `DROP COLUMN`).
enum MigrationBench {
    typealias Line = HistoryBench.Line

    static func measure(data: DataSet, runs: Int, scratch: URL, log: (String) -> Void) throws -> [Line] {
        let folder = scratch.appendingPathComponent("migration")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bundle = try writeModelVersions(in: folder)
        let templates = try StoreTemplates.make(
            in: folder, model: try NSManagedObjectModel(contentsOf: bundle, versionName: "Version1"), data: data)
        let count = data.count
        var lines: [Line] = []

        log("Migration: add a column to \(count) items…")
        let addOCD = try HistoryBench.median(runs) { try migrateOCD(templates, bundle: bundle, to: "AddNote", folder: folder) }
        let addRaw = try HistoryBench.median(runs) {
            try raw(templates, folder: folder, ["ALTER TABLE ZTSPITEM ADD COLUMN ZNOTE VARCHAR"])
        }
        let addGRDB = try HistoryBench.median(runs) {
            try grdb(templates, folder: folder) { try $0.alter(table: "ZTSPITEM") { $0.add(column: "ZNOTE", .text) } }
        }
        lines.append(Line(
            title: "lightweight migration of \(count) items adding a column / raw ALTER TABLE ADD COLUMN + metadata",
            figure: HistoryBench.ratio(addOCD / addRaw), target: "≤ 1.20×", met: addOCD / addRaw <= 1.2,
            reference: "\(HistoryBench.ms(addOCD)) ms; GRDB migrator / raw: \(HistoryBench.ratio(addGRDB / addRaw))"))

        log("Migration: drop a column of \(count) items…")
        let dropOCD = try HistoryBench.median(runs) { try migrateOCD(templates, bundle: bundle, to: "DropDone", folder: folder) }
        let dropRaw = try HistoryBench.median(runs) {
            try raw(templates, folder: folder, [
                "CREATE TABLE ZTSPITEM_NEW ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCREATEDAT TIMESTAMP, ZNAME VARCHAR )",
                "INSERT INTO ZTSPITEM_NEW (Z_PK, Z_ENT, Z_OPT, ZCREATEDAT, ZNAME) SELECT Z_PK, Z_ENT, Z_OPT, ZCREATEDAT, ZNAME FROM ZTSPITEM",
                "DROP TABLE ZTSPITEM",
                "ALTER TABLE ZTSPITEM_NEW RENAME TO ZTSPITEM",
            ])
        }
        let dropGRDB = try HistoryBench.median(runs) {
            try grdb(templates, folder: folder) { try $0.alter(table: "ZTSPITEM") { $0.drop(column: "ZDONE") } }
        }
        lines.append(Line(
            title: "lightweight migration of \(count) items dropping a column (table rebuild) / raw CREATE, INSERT SELECT, DROP, RENAME + metadata",
            figure: HistoryBench.ratio(dropOCD / dropRaw), target: "≤ 1.50×", met: dropOCD / dropRaw <= 1.5,
            reference: "\(HistoryBench.ms(dropOCD)) ms; GRDB migrator (DROP COLUMN) / raw: \(HistoryBench.ratio(dropGRDB / dropRaw))"))
        lines.append(try MappingMigrationBench.measure(bundle: bundle, runs: runs, folder: folder, log: log))
        return lines
    }

    /// The model's versions as Xcode keeps them, so that a migration finds the source among them:
    /// the tutorials' TSPItem, one with a `note` more, one without `done`.
    static func writeModelVersions(in folder: URL) throws -> URL {
        let bundle = folder.appendingPathComponent("Bench.xcdatamodeld")
        let versions = [
            ("Version1", #"<attribute name="done" optional="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/><attribute name="name" optional="YES" attributeType="String"/>"#),
            ("AddNote", #"<attribute name="done" optional="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/><attribute name="name" optional="YES" attributeType="String"/><attribute name="note" optional="YES" attributeType="String"/>"#),
            ("DropDone", #"<attribute name="name" optional="YES" attributeType="String"/>"#),
        ]
        for (name, attributes) in versions {
            let version = bundle.appendingPathComponent("\(name).xcdatamodel")
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            let xml = """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="22A380" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="\(name)">
                    <entity name="TSPItem" representedClassName="TSPItem" syncable="YES">
                        <attribute name="createdAt" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                        \(attributes)
                    </entity>
                </model>
                """
            try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
        }
        return bundle
    }

    /// Opens a copy of the filled store with model version `version` and closes it: the
    /// migration, with the open and close the other ways pay too.
    static func migrateOCD(_ templates: StoreTemplates, bundle: URL, to version: String, folder: URL) throws -> Double {
        let run = folder.appendingPathComponent("run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: run) }
        let url = try templates.copy(filled: true, into: run)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: version))
        return try HistoryBench.seconds {
            let store = try coordinator.addPersistentStore(
                type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
            try coordinator.remove(store)
        }
    }

    /// The same change by hand on a copy: open, the statements and a metadata row of the same
    /// size rewritten, in one transaction.
    static func raw(_ templates: StoreTemplates, folder: URL, _ statements: [String]) throws -> Double {
        let run = folder.appendingPathComponent("run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: run) }
        let url = try templates.copy(filled: true, into: run)
        return try HistoryBench.seconds {
            let db = try RawDatabase(url: url)
            defer { db.close() }
            try db.execute("BEGIN IMMEDIATE")
            for statement in statements { try db.execute(statement) }
            try db.execute("UPDATE Z_METADATA SET Z_PLIST = Z_PLIST, Z_UUID = Z_UUID")
            try db.execute("COMMIT")
        }
    }

    /// GRDB's migrator on a copy, its migration's metadata row written as Core Data's is.
    static func grdb(_ templates: StoreTemplates, folder: URL, _ change: @escaping @Sendable (Database) throws -> Void) throws -> Double {
        let run = folder.appendingPathComponent("run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: run) }
        let url = try templates.copy(filled: true, into: run)
        return try HistoryBench.seconds {
            let queue = try DatabaseQueue(path: url.path)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("change") { db in
                try change(db)
                try db.execute(sql: "UPDATE Z_METADATA SET Z_PLIST = Z_PLIST, Z_UUID = Z_UUID")
            }
            try migrator.migrate(queue)
            try queue.close()
        }
    }
}
