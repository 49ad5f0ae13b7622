import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// A save across two stores is the coordinator's: every store's share or none.
@Suite struct MultiStoreSaveTests {
    /// Notes in the configuration "Notes", tags (with a unique name) in "Tags": one file each.
    private static func model() -> NSManagedObjectModel {
        let note = TestModels.entity("Note", [TestModels.attribute("title", .stringAttributeType)])
        let tag = TestModels.entity("Tag", [TestModels.attribute("name", .stringAttributeType)])
        tag.uniquenessConstraints = [["name"]]
        let model = NSManagedObjectModel()
        model.entities = [note, tag]
        model.setEntities([note], forConfigurationName: "Notes")
        model.setEntities([tag], forConfigurationName: "Tags")
        return model
    }

    private static func rows(in url: URL, table: String) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path)
        let column = table == "ZNOTE" ? "ZTITLE" : "ZNAME"
        return try queue.read { db in try String.fetchAll(db, sql: "SELECT \(column) FROM \(table) ORDER BY Z_PK") }
    }

    @Test func aSaveThatFailsInTheSecondStoreLeavesTheFirstUnchangedAndARetryInsertsOnce() throws {
        let directory = TemporaryDirectory()
        let notesURL = directory.file("Notes.sqlite")
        let tagsURL = directory.file("Tags.sqlite")
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
            let notes = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Notes", at: notesURL)
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Tags", at: tagsURL)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context).setValue("home", forKey: "name")
                try context.save()

                let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
                note.setValue("groceries", forKey: "title")
                let duplicate = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
                duplicate.setValue("home", forKey: "name")
                let temporaryID = note.objectID
                #expect(temporaryID.isTemporaryID)

                // The tag breaks its store's constraint after the note's store has written.
                let error = try #require(throws: NSError.self) { try context.save() }
                #expect(error.code == NSManagedObjectConstraintMergeError)
                #expect(note.objectID == temporaryID)
                #expect(note.objectID.isTemporaryID)
                #expect(note.isInserted)
                #expect(context.insertedObjects.count == 2)
                #expect(try Self.rows(in: notesURL, table: "ZNOTE").isEmpty)

                duplicate.setValue("work", forKey: "name")
                try context.save()
                #expect(!note.objectID.isTemporaryID)
                #expect(note.objectID.persistentStore === notes)
            }
        }
        #expect(try Self.rows(in: notesURL, table: "ZNOTE") == ["groceries"])
        #expect(try Self.rows(in: tagsURL, table: "ZTAG") == ["home", "work"])
    }

    @Test func aSaveAcrossTwoStoresWritesEachObjectToItsConfigurationsStore() throws {
        let directory = TemporaryDirectory()
        let notesURL = directory.file("Notes.sqlite")
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: "Notes", at: notesURL)
            try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: "Tags", at: nil)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                NSEntityDescription.insertNewObject(forEntityName: "Note", into: context).setValue("a", forKey: "title")
                NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context).setValue("b", forKey: "name")
                try context.save()
                let tags = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
                #expect(tags.map { $0.value(forKey: "name") as? String } == ["b"])
                #expect(tags.first?.objectID.persistentStore?.type == NSInMemoryStoreType)
            }
        }
        #expect(try Self.rows(in: notesURL, table: "ZNOTE") == ["a"])
    }
}
