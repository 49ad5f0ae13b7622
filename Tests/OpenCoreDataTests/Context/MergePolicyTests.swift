import Testing
@testable import OpenCoreData

/// The same conflicting pair of saves under each merge policy: another context changed `name`
/// and `createdAt`; this one changed `name` and `done`.
@Suite struct MergePolicyTests {
    struct Outcome: Equatable, Sendable {
        var name: String?
        var createdAt: Double?
        var done: Bool?
    }

    static let original = Date(timeIntervalSinceReferenceDate: 1000)
    static let theirs = Date(timeIntervalSinceReferenceDate: 2000)

    private func conflictingSave(policy: Any) throws -> (Result<Void, NSError>, stored: Outcome, object: Outcome) {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let id = try stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            item.setValue("original", forKey: "name")
            item.setValue(Self.original, forKey: "createdAt")
            item.setValue(false, forKey: "done")
            try stack.context.save()
            return item.objectID
        }
        let mine = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        mine.persistentStoreCoordinator = stack.coordinator
        mine.mergePolicy = policy
        let item = mine.performAndWait {
            let item = mine.object(with: id)
            _ = item.value(forKey: "name")
            return item
        }
        try stack.context.performAndWait {
            let other = stack.context.object(with: id)
            other.setValue("theirs", forKey: "name")
            other.setValue(Self.theirs, forKey: "createdAt")
            try stack.context.save()
        }
        let result: Result<Void, NSError> = mine.performAndWait {
            item.setValue("mine", forKey: "name")
            item.setValue(true, forKey: "done")
            do { try mine.save(); return .success(()) } catch { return .failure(error as NSError) }
        }
        func outcome(_ object: NSManagedObject) -> Outcome {
            Outcome(
                name: object.value(forKey: "name") as? String,
                createdAt: (object.value(forKey: "createdAt") as? Date)?.timeIntervalSinceReferenceDate,
                done: object.value(forKey: "done") as? Bool)
        }
        let reader = try stack.reopened()
        let stored = try reader.context.performAndWait { outcome(try reader.context.existingObject(with: id)) }
        let object = mine.performAndWait { outcome(item) }
        return (result, stored, object)
    }

    @Test func errorPolicyFailsWith133020AndReportsBothVersions() throws {
        let (result, stored, _) = try conflictingSave(policy: NSErrorMergePolicy)
        guard case .failure(let error) = result else {
            Issue.record("the save should have failed")
            return
        }
        #expect(error.code == NSManagedObjectMergeError)
        let conflict = try #require((error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSMergeConflict])?.first)
        #expect(conflict.objectSnapshot?["name"] as? String == "original")
        #expect(conflict.persistedSnapshot?["name"] as? String == "theirs")
        #expect(conflict.oldVersionNumber == 1 && conflict.newVersionNumber == 2)
        #expect(stored == Outcome(name: "theirs", createdAt: 2000, done: false))
    }

    @Test(arguments: [
        (NSMergePolicyType.mergeByPropertyStoreTrumpMergePolicyType, Outcome(name: "theirs", createdAt: 2000, done: true)),
        (.mergeByPropertyObjectTrumpMergePolicyType, Outcome(name: "mine", createdAt: 2000, done: true)),
        (.overwriteMergePolicyType, Outcome(name: "mine", createdAt: 1000, done: true)),
        (.rollbackMergePolicyType, Outcome(name: "theirs", createdAt: 2000, done: false)),
    ])
    func resolvingPoliciesGiveApplesOutcome(policy: NSMergePolicyType, expected: Outcome) throws {
        let (result, stored, object) = try conflictingSave(policy: NSMergePolicy(merge: policy))
        if case .failure(let error) = result { Issue.record("the save failed: \(error)") }
        #expect(stored == expected)
        #expect(object == expected)
    }

    @Test(arguments: [
        (NSMergePolicyType.mergeByPropertyObjectTrumpMergePolicyType, "New", 10),
        (.overwriteMergePolicyType, "New", nil),
        (.mergeByPropertyStoreTrumpMergePolicyType, "Old", 10),
        (.rollbackMergePolicyType, "Old", 10),
    ] as [(NSMergePolicyType, String, Int?)])
    func uniquenessConflictsMergeIntoTheExistingRow(policy: NSMergePolicyType, title: String, pages: Int?) throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        stack.context.mergePolicy = NSMergePolicy(merge: policy)
        try stack.context.performAndWait {
            let old = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            old.setValue("Old", forKey: "title")
            old.setValue("978", forKey: "isbn")
            old.setValue(10, forKey: "pages")
            try stack.context.save()
            let existingID = old.objectID
            stack.context.reset()

            let new = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            new.setValue("New", forKey: "title")
            new.setValue("978", forKey: "isbn")
            try stack.context.save()
            #expect(new.objectID == existingID)
            #expect(new.value(forKey: "title") as? String == title)
        }
        let reader = try stack.reopened()
        try reader.context.performAndWait {
            let books = try reader.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
            #expect(books.count == 1)
            #expect(books.first?.value(forKey: "title") as? String == title)
            #expect(books.first?.value(forKey: "pages") as? Int == pages)
        }
    }
}
