import Foundation
import Synchronization
import Testing

@testable import OpenCoreData

/// Lightweight migration in place, the same bodies on every store that keeps its data (the
/// in-memory store has nothing to migrate): an attribute renamed, attributes added with and
/// without defaults, an entity added and one removed (so that entity numbers and the
/// many-to-many table's name change), objects, keys and relationships kept.
@Suite struct MigrationConformanceTests {
    static let stores: [ConformanceStore] = ConformanceStore.builtIn.filter(\.isPersistent)

    static let version1 = """
        <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="count" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="item" inverseEntity="Note"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
        </entity>
        <entity name="Note" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="text" optional="YES" attributeType="String"/>
            <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="notes" inverseEntity="Item"/>
        </entity>
        <entity name="Special" representedClassName="NSManagedObject" parentEntity="Item" syncable="YES"/>
        <entity name="Tag" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
        </entity>
        """

    /// `name` renamed `title`; `priority` (required, default 3), `note` and `Special.level`
    /// (default 5) added; `Folder` added; `Note` removed.
    static let version2 = """
        <entity name="Folder" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="count" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
            <attribute name="note" optional="YES" attributeType="String"/>
            <attribute name="priority" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/>
            <attribute name="title" optional="YES" attributeType="String" elementID="name"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
        </entity>
        <entity name="Special" representedClassName="NSManagedObject" parentEntity="Item" syncable="YES">
            <attribute name="level" optional="YES" attributeType="Integer 16" defaultValueString="5" usesScalarValueType="YES"/>
        </entity>
        <entity name="Tag" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
        </entity>
        """

    /// Version 1 with a required `code` and no default: existing rows cannot be migrated.
    static let unmigratable = version1.replacingOccurrences(
        of: #"<attribute name="name" optional="YES" attributeType="String"/>"#,
        with: #"<attribute name="name" optional="YES" attributeType="String"/><attribute name="code" attributeType="String"/>"#)

    /// Version 1 where `Item` only gains and renames attributes: its table is altered where it is.
    static let alteredOnly = version1.replacingOccurrences(
        of: #"<attribute name="name" optional="YES" attributeType="String"/>"#,
        with: #"<attribute name="note" optional="YES" attributeType="String"/><attribute name="priority" attributeType="Integer 16" defaultValueString="3" usesScalarValueType="YES"/><attribute name="title" optional="YES" attributeType="String" elementID="name"/>"#)

    /// A context on a new coordinator with version `version` of the model bundle `bundle`, its
    /// store of `kind` at `url` added with lightweight migration on.
    static func migratingContext(_ version: String, bundle: URL, url: URL, kind: ConformanceStore) throws -> NSManagedObjectContext {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: version))
        try coordinator.addPersistentStore(
            type: kind.type, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// The four versions in one model bundle, and a new store of `kind` holding version 1's
    /// objects: "Apple" (count 1, tags red and green, a note), "Pear" (a Special, count 2, tag
    /// red), "Plum" (no count, no tags).
    struct Fixture {
        let kind: ConformanceStore
        let bundle: URL
        let url: URL
        let identifier: String

        init(_ kind: ConformanceStore, in directory: TemporaryDirectory) throws {
            self.kind = kind
            bundle = directory.file("Shop.xcdatamodeld")
            for (name, entities) in [("1", version1), ("2", version2), ("3", unmigratable), ("4", alteredOnly)] {
                try TableAlterationTests.version(name, in: bundle, entities)
            }
            url = kind == .postgreSQL ? try PostgreSQLServer.required().storeURL() : directory.file("Shop.store")
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "1"))
            let store = try coordinator.addPersistentStore(type: kind.type, at: url)
            identifier = store.identifier
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                let red = ConformanceStack.insert("Tag", ["label": "red"], into: context)
                let green = ConformanceStack.insert("Tag", ["label": "green"], into: context)
                let apple = ConformanceStack.insert("Item", ["name": "Apple", "count": 1, "tags": Set([red, green])], into: context)
                ConformanceStack.insert("Note", ["text": "crisp", "item": apple], into: context)
                ConformanceStack.insert("Special", ["name": "Pear", "count": 2, "tags": Set([red])], into: context)
                ConformanceStack.insert("Item", ["name": "Plum"], into: context)
                try context.save()
            }
            try coordinator.remove(store)
        }

        /// A context on a new coordinator with `version`, the store added with `options`.
        func open(_ version: String, migrating: Bool = true) throws -> (NSManagedObjectContext, NSPersistentStore) {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: version))
            let options: [AnyHashable: Any] =
                migrating ? [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] : [:]
            let store = try coordinator.addPersistentStore(type: kind.type, at: url, options: options)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            return (context, store)
        }
    }

    /// Each item as "entity title count priority [level] tags", by title.
    static func items(_ context: NSManagedObjectContext, titleKey: String = "title") throws -> [String] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: titleKey, ascending: true)]
            return try context.fetch(request).map { item in
                let tags = (item.value(forKey: "tags") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "label") as? String }.sorted()
                var line = "\(item.entity.name!) \(item.value(forKey: titleKey) ?? "nil") \(item.value(forKey: "count") ?? "nil")"
                if titleKey == "title" { line += " \(item.value(forKey: "priority") ?? "nil")" }
                if item.entity.propertiesByName["level"] != nil { line += " \(item.value(forKey: "level") ?? "nil")" }
                return line + " [\(tags.joined(separator: ","))]"
            }
        }
    }

    static let version1Items = ["Item Apple 1 [green,red]", "Special Pear 2 [red]", "Item Plum nil []"]
    static let version2Items = ["Item Apple 1 3 [green,red]", "Special Pear 2 3 5 [red]", "Item Plum nil 3 []"]

    @Test(arguments: stores)
    func aLightweightMigrationKeepsEveryObjectAndRelationship(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(kind, in: directory)
        let (context, store) = try fixture.open("2")
        #expect(store.identifier == fixture.identifier, "the store keeps its UUID")
        #expect(try Self.items(context) == Self.version2Items)
        try context.performAndWait {
            let tags = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
            let red = try #require(tags.first { $0.value(forKey: "label") as? String == "red" })
            #expect((red.value(forKey: "items") as? Set<NSManagedObject>)?.count == 2, "the many-to-many table moved with the entity numbers")
            // New objects take keys the old ones do not have, in new and in renumbered tables.
            ConformanceStack.insert("Folder", ["name": "Fruit"], into: context)
            ConformanceStack.insert("Item", ["title": "Quince", "tags": Set([red])], into: context)
            try context.save()
        }
        // A second coordinator finds the migrated store and needs no migration.
        let (reader, _) = try fixture.open("2", migrating: false)
        #expect(try Self.items(reader) == Self.version2Items + ["Item Quince nil 3 [red]"])
        let folders = try reader.performAndWait { try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Folder")) }
        #expect(folders == 1)
    }

    @Test(arguments: stores)
    func addedAndRenamedAttributesKeepTheirRows(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(kind, in: directory)
        let (context, store) = try fixture.open("4")
        #expect(store.identifier == fixture.identifier)
        #expect(try Self.items(context) == ["Item Apple 1 3 [green,red]", "Special Pear 2 3 [red]", "Item Plum nil 3 []"])
        try context.performAndWait {
            let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
            #expect(notes.map { ($0.value(forKey: "item") as? NSManagedObject)?.value(forKey: "title") as? String } == ["Apple"])
            ConformanceStack.insert("Item", ["title": "Quince", "note": "hard"], into: context)
            try context.save()
        }
        let (reader, _) = try fixture.open("4", migrating: false)
        #expect(try Self.items(reader).last == "Item Quince nil 3 []")
    }

    /// Version 1 → 4 by a custom stage whose handler writes each item's note with the
    /// version-4 model (so the stage ran on this store), then 4 → 2 by a lightweight stage.
    @Test(arguments: stores)
    func aStagedMigrationStepsThroughEachVersion(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(kind, in: directory)
        let versions = try ["1", "4", "2"].map { try NSManagedObjectModel(contentsOf: fixture.bundle, versionName: $0) }
        let references = versions.map { NSManagedObjectModelReference(model: $0, versionChecksum: $0.versionChecksum) }
        let custom = NSCustomMigrationStage(migratingFrom: references[0], to: references[1])
        custom.didMigrateHandler = { manager, _ in
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                for item in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")) {
                    item.setValue("staged \(item.value(forKey: "title") ?? "")", forKey: "note")
                }
                try context.save()
            }
        }
        let manager = NSStagedMigrationManager([custom, NSLightweightMigrationStage([versions[1].versionChecksum, versions[2].versionChecksum])])
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: versions[2])
        let store = try coordinator.addPersistentStore(
            type: kind.type, at: fixture.url,
            options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager, NSMigratePersistentStoresAutomaticallyOption: true])
        #expect(store.identifier == fixture.identifier)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        #expect(try Self.items(context) == Self.version2Items)
        let notes = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            return try context.fetch(request).map { $0.value(forKey: "note") as? String ?? "nil" }
        }
        #expect(notes == ["staged Apple", "staged Pear", "staged Plum"])
    }

    /// What an app checks before it opens a store: the metadata, read without opening it, and
    /// whether a model fits it.
    @Test(arguments: stores)
    func theMetadataTellsWhichModelFits(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(kind, in: directory)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: kind.type, at: fixture.url)
        #expect(metadata[NSStoreUUIDKey] as? String == fixture.identifier)
        let version1 = try NSManagedObjectModel(contentsOf: fixture.bundle, versionName: "1")
        let version2 = try NSManagedObjectModel(contentsOf: fixture.bundle, versionName: "2")
        #expect(version1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        #expect(!version2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        _ = try fixture.open("2")
        let migrated = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: kind.type, at: fixture.url)
        #expect(version2.isConfiguration(withName: nil, compatibleWithStoreMetadata: migrated))
        #expect(migrated[NSStoreUUIDKey] as? String == fixture.identifier)
    }

    @Test(arguments: stores)
    func withoutTheOptionTheStoreIsIncompatibleAndUntouched(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(kind, in: directory)
        let error = #expect(throws: NSError.self) { try fixture.open("2", migrating: false) }
        #expect(error?.code == NSPersistentStoreIncompatibleVersionHashError)
        let (context, _) = try fixture.open("1", migrating: false)
        #expect(try Self.items(context, titleKey: "name") == Self.version1Items)
    }

    @Test(arguments: stores)
    func aFailedMigrationLeavesTheStoreAsItWas(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(kind, in: directory)
        let error = #expect(throws: NSError.self) { try fixture.open("3") }
        #expect(error?.code == NSMigrationError)
        #expect(error?.localizedDescription.contains("Item.code") == true, "the error names the attribute: \(error?.localizedDescription ?? "")")
        let (context, _) = try fixture.open("1", migrating: false)
        #expect(try Self.items(context, titleKey: "name") == Self.version1Items)
        let notes = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) }
        #expect(notes == 1)
        // Nothing half-done stands in the way of the migration that can be made.
        let (migrated, _) = try fixture.open("2")
        #expect(try Self.items(migrated) == Self.version2Items)
    }

    @Test(arguments: stores)
    func coordinatorsOpeningAtOnceMigrateOnce(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(kind, in: directory)
        let results = Mutex<[Result<[String], NSError>]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let result = Result { try fixture.open("2") }.flatMap { opened in Result { try Self.items(opened.0) } }.mapError { $0 as NSError }
            results.withLock { $0.append(result) }
        }
        for result in results.withLock({ $0 }) {
            #expect(try result.get() == Self.version2Items)
        }
    }
}
