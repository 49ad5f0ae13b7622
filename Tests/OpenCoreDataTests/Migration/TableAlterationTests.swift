import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// A migration that only adds or renames columns alters the table where it is (its rows are not
/// copied: a renamed column keeps its place, new ones come last); one that drops a column
/// rebuilds it (its columns are then in a new store's order).
@Suite struct TableAlterationTests {
    /// Writes version `name` of a `Shop.xcdatamodeld` in `bundle` with the entities' XML.
    static func version(_ name: String, in bundle: URL, _ entities: String) throws {
        let folder = bundle.appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let xml = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="22A380" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="\(name)">
                \(entities)
            </model>
            """
        try Data(xml.utf8).write(to: folder.appendingPathComponent("contents"))
    }

    static let version1 = """
        <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="count" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Special" representedClassName="NSManagedObject" parentEntity="Item" syncable="YES"/>
        """

    /// The table's columns, in order, read with SQLite.
    static func table(_ url: URL) throws -> (columns: [String], rows: Int) {
        try DatabaseQueue(path: url.path).read { db in
            (try db.columns(in: "ZITEM").map(\.name), try Int.fetchOne(db, sql: "SELECT count(*) FROM ZITEM") ?? 0)
        }
    }

    /// The columns a new store of `version` has, in order.
    static func freshColumns(bundle: URL, version: String, in directory: TemporaryDirectory) throws -> [String] {
        let url = directory.file("Fresh-\(version).sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: version))
        try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
        return try table(url).columns
    }

    static func makeStore(_ url: URL, bundle: URL) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "1"))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for (index, entity) in ["Item", "Special", "Item"].enumerated() {
                let item = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                item.setValue("n\(index)", forKey: "name")
                item.setValue(index, forKey: "count")
            }
            try context.save()
        }
        try coordinator.remove(store)
    }

    static func open(_ url: URL, bundle: URL, version: String) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: version))
        _ = try coordinator.addPersistentStore(
            type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func addedAndRenamedColumnsAlterTheTableInPlace() throws {
        let directory = TemporaryDirectory()
        let bundle = directory.file("Shop.xcdatamodeld")
        try Self.version("1", in: bundle, Self.version1)
        try Self.version("2", in: bundle, """
            <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="count" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                <attribute name="note" optional="YES" attributeType="String"/>
                <attribute name="title" optional="YES" attributeType="String" elementID="name"/>
            </entity>
            <entity name="Special" representedClassName="NSManagedObject" parentEntity="Item" syncable="YES">
                <attribute name="level" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>
            </entity>
            """)
        let url = directory.file("Shop.sqlite")
        try Self.makeStore(url, bundle: bundle)
        let before = try Self.table(url)

        // The migration reports to the `Progress` current when the store is added.
        let parent = Progress(totalUnitCount: 1)
        parent.becomeCurrent(withPendingUnitCount: 1)
        let context = try Self.open(url, bundle: bundle, version: "2")
        // Before `resignCurrent` (which completes pending units no child took): the migration's
        // own progress completed the parent's unit.
        #expect(parent.fractionCompleted == 1)
        parent.resignCurrent()
        let after = try Self.table(url)
        #expect(!after.columns.contains("ZNAME"))
        #expect(after.columns.firstIndex(of: "ZTITLE") == before.columns.firstIndex(of: "ZNAME"))
        #expect(Array(after.columns.prefix(before.columns.count)) == before.columns.map { $0 == "ZNAME" ? "ZTITLE" : $0 })
        #expect(Set(after.columns.dropFirst(before.columns.count)) == ["ZNOTE", "ZLEVEL"])
        let values = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).map { item in
                "\(item.entity.name!) \(item.value(forKey: "title") as? String ?? "-") \(item.value(forKey: "count") as? Int ?? -1) \(item.entity.name == "Special" ? "\(item.value(forKey: "level") ?? "nil")" : "")"
            }.sorted()
        }
        #expect(values == ["Item n0 0 ", "Item n2 2 ", "Special n1 1 3"])
        // Rows of entities without the new attribute keep it empty.
        let levels = try DatabaseQueue(path: url.path).read { db in try Int?.fetchAll(db, sql: "SELECT ZLEVEL FROM ZITEM ORDER BY Z_PK") }
        #expect(levels == [nil, 3, nil])
    }

    /// A version-1 store, and a version 2 in which Item loses `count` and gains `note`.
    static func storeLosingCount(in directory: TemporaryDirectory) throws -> (bundle: URL, url: URL) {
        let bundle = directory.file("Shop.xcdatamodeld")
        try version("1", in: bundle, version1)
        try version("2", in: bundle, """
            <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="note" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Special" representedClassName="NSManagedObject" parentEntity="Item" syncable="YES"/>
            """)
        let url = directory.file("Shop.sqlite")
        try makeStore(url, bundle: bundle)
        return (bundle, url)
    }

    @Test func aDroppedColumnRebuildsTheTable() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.storeLosingCount(in: directory)
        let before = try Self.table(url)

        let context = try Self.open(url, bundle: bundle, version: "2")
        let after = try Self.table(url)
        #expect(after.columns == (try Self.freshColumns(bundle: bundle, version: "2", in: directory)))
        #expect(after.rows == before.rows)
        let names = try context.performAndWait {
            try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(names == ["n0", "n1", "n2"])
    }

    /// With `NSPersistentStoreDeferredLightweightMigrationOptionKey`, a dropped column stays
    /// (the table is not copied) and the metadata says so, until the coordinator finishes the
    /// migration; the store works meanwhile.
    @Test func aDeferredDropWaitsForFinishDeferredLightweightMigration() throws {
        let directory = TemporaryDirectory()
        let (bundle, url) = try Self.storeLosingCount(in: directory)
        let before = try Self.table(url)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "2"))
        let store = try coordinator.addPersistentStore(
            type: .sqlite, at: url,
            options: [
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                NSPersistentStoreDeferredLightweightMigrationOptionKey: true,
            ])
        let deferred = try Self.table(url)
        #expect(Array(deferred.columns.prefix(before.columns.count)) == before.columns)
        #expect(deferred.columns.last == "ZNOTE")
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true)

        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("n3", forKey: "name")
            try context.save()
        }
        try coordinator.finishDeferredLightweightMigration()
        let finished = try Self.table(url)
        #expect(finished.columns == (try Self.freshColumns(bundle: bundle, version: "2", in: directory)))
        #expect(coordinator.metadata(for: store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
        let names = try context.performAndWait {
            context.reset()
            return try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
        #expect(names == ["n0", "n1", "n2", "n3"])
        let onDisk = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(onDisk[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
    }
}
