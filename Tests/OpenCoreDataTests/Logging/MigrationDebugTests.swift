import Foundation
import Logging
import Testing

@testable import OpenCoreData

/// `-com.apple.CoreData.MigrationDebug`: what a user whose store migrates reads in the log (a
/// mapping model's passes: `MappingModelMigrationTests`, whose policy registrations it shares).
@Suite struct MigrationDebugTests {
    /// A version-1 store of one Item, and a coordinator of version 2 (one attribute more) at
    /// `level`, whose log lands in the returned log.
    private func migrate(level: Int, directory: TemporaryDirectory) throws -> CapturedLog {
        let bundle = directory.file("Items.xcdatamodeld")
        try TableAlterationTests.version("1", in: bundle, """
            <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            """)
        try TableAlterationTests.version("2", in: bundle, """
            <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <attribute name="note" optional="YES" attributeType="String"/>
            </entity>
            """)
        let url = directory.file("Items.sqlite")
        let first = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "1"))
        try first.remove(try first.addPersistentStore(type: .sqlite, at: url))
        let log = CapturedLog()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(contentsOf: bundle, versionName: "2"))
        coordinator.sqlDebugLevel = 0
        coordinator.migrationDebugLevel = level
        coordinator.logger = Logger(label: "test.migration") { _ in log.handler }
        _ = try coordinator.addPersistentStore(
            type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
        return log
    }

    @Test func level1TellsEachStepOfAnInPlaceMigration() throws {
        let messages = try migrate(level: 1, directory: TemporaryDirectory()).messages
        #expect(messages.contains { $0.hasPrefix("(migration) migrating the store at ") && $0.contains("in place, with an inferred mapping model: ItemToItem") })
        #expect(messages.contains { $0.hasPrefix("(migration) altering table ZITEM where it is: ALTER TABLE ZITEM ADD COLUMN ZNOTE") })
        #expect(messages.last?.hasPrefix("(migration) in-place migration completed successfully in ") == true)
    }

    @Test func level0SaysNothing() throws {
        #expect(try migrate(level: 0, directory: TemporaryDirectory()).messages.isEmpty)
    }

    @Test func theLaunchArgumentWinsOverTheEnvironment() {
        #expect(SQLDebug.level(of: MigrationDebug.launchArgument, or: MigrationDebug.environmentVariable,
            arguments: ["app", "-com.apple.CoreData.MigrationDebug", "1"], environment: ["OPENCOREDATA_MIGRATION_DEBUG": "0"]) == 1)
        #expect(SQLDebug.level(of: MigrationDebug.launchArgument, or: MigrationDebug.environmentVariable,
            arguments: ["app"], environment: ["OPENCOREDATA_MIGRATION_DEBUG": "2"]) == 2)
    }
}
