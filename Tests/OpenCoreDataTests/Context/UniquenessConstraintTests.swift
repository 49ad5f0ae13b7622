import Testing
@testable import OpenCoreData

@Suite
struct UniquenessConstraintTests {
    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func duplicateKeyFailsWith133021AndLeavesTheStore(type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory, type: type)
        try stack.context.performAndWait {
            let first = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            first.setValue("First", forKey: "title")
            first.setValue("978-0", forKey: "isbn")
            try stack.context.save()
            let before = type == .sqlite ? try StoreSnapshot.rows(of: stack.url) : [:]

            let second = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            second.setValue("Second", forKey: "title")
            second.setValue("978-0", forKey: "isbn")
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSManagedObjectConstraintMergeError)
            let conflicts = try #require(error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])
            #expect(conflicts.first?.constraint == ["isbn"])
            #expect(conflicts.first?.conflictingObjects.first === second)
            #expect(second.isInserted && second.objectID.isTemporaryID)
            if type == .sqlite { #expect(try StoreSnapshot.rows(of: stack.url) == before) }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.includesPendingChanges = false
            #expect(try stack.context.count(for: request) == 1)
        }
    }
}
