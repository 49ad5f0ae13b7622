import Testing
@testable import OpenCoreData

@Suite struct MergingTests {
    /// 20 rounds, as the concurrency issue asks; the thread-sanitizer run in CI takes fewer
    /// (OPENCOREDATA_STRESS_ROUNDS), since every access there costs far more.
    static let stressRounds = Int(ProcessInfo.processInfo.environment["OPENCOREDATA_STRESS_ROUNDS"] ?? "") ?? 20

    private func context(_ coordinator: NSPersistentStoreCoordinator, _ name: String) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        return context
    }

    @Test func mergeFromDidSaveUpdatesInPlaceAndKeepsLocalChanges() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let reader = context(stack.coordinator, "reader")
        let (bookID, authorID) = try stack.context.performAndWait {
            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            author.setValue("Ann", forKey: "name")
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
            book.setValue("Old title", forKey: "title")
            book.setValue(10, forKey: "pages")
            try stack.context.save()
            return (book.objectID, author.objectID)
        }
        let (readerBook, readerAuthor) = reader.performAndWait {
            let book = reader.object(with: bookID)
            let author = reader.object(with: authorID)
            _ = book.value(forKey: "title")
            _ = author.value(forKey: "name")
            book.setValue(20, forKey: "pages")
            return (book, author)
        }
        let recorder = NotificationRecorder(NSManagedObjectContext.didSaveObjectsNotification, object: stack.context)
        try stack.context.performAndWait {
            let book = stack.context.object(with: bookID)
            book.setValue("New title", forKey: "title")
            stack.context.delete(stack.context.object(with: authorID))
            try stack.context.save()
        }
        let note = try #require(recorder.notifications.first)
        reader.mergeChanges(fromContextDidSave: note)
        try reader.performAndWait {
            #expect(readerBook.value(forKey: "title") as? String == "New title")
            #expect(readerBook.value(forKey: "pages") as? Int == 20)
            #expect(readerBook.isUpdated)
            #expect(readerAuthor.managedObjectContext == nil)
            #expect(reader.registeredObject(for: authorID) == nil)
            try reader.save()
        }
        stack.context.performAndWait {
            stack.context.refreshAllObjects()
            #expect(stack.context.object(with: bookID).value(forKey: "pages") as? Int == 20)
        }
    }

    @Test func remoteMergeTakesObjectIDsAndURIs() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let viewer = context(stack.coordinator, "viewer")
        let id = try stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            item.setValue("before", forKey: "name")
            try stack.context.save()
            return item.objectID
        }
        let seen = viewer.performAndWait {
            let item = viewer.object(with: id)
            _ = item.value(forKey: "name")
            return item
        }
        try stack.context.performAndWait {
            stack.context.object(with: id).setValue("after", forKey: "name")
            try stack.context.save()
        }
        NSManagedObjectContext.mergeChanges(fromRemoteContextSave: [NSUpdatedObjectsKey: [id.uriRepresentation()]], into: [viewer])
        viewer.performAndWait { #expect(seen.value(forKey: "name") as? String == "after") }
    }

    @Test func asyncPerformReturnsTheBlocksValueAndRethrows() async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let count = try await stack.context.perform {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue("x", forKey: "name")
            try stack.context.save()
            return try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
        }
        #expect(count == 1)
        let enqueued = await stack.context.perform(schedule: .enqueued) { stack.context.hasChanges }
        #expect(enqueued == false)
        await #expect(throws: NSError.self) {
            try await stack.context.perform { _ = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Nope")) }
        }
    }

    /// Eight background contexts each make 500 small saves while a context that merges
    /// automatically follows them; repeated, the store and the follower hold exactly what was saved.
    @Test(arguments: 0..<MergingTests.stressRounds)
    func concurrentSavesMergeIntoAFollowingContext(round: Int) async throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let follower = context(stack.coordinator, "follower")
        follower.automaticallyMergesChangesFromParent = true
        let watched = try follower.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: follower)
            item.setValue("counter", forKey: "name")
            item.setValue(false, forKey: "done")
            try follower.save()
            return item
        }
        let watchedID = follower.performAndWait { watched.objectID }
        let workers = 8, saves = 500
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                let background = context(stack.coordinator, "worker \(worker)")
                group.addTask {
                    try await background.perform {
                        for i in 0..<saves {
                            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: background)
                            item.setValue("w\(worker)-\(i)", forKey: "name")
                            try background.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // Merges are delivered asynchronously on the follower's queue: wait for the one that
        // refreshes the watched object, the last save's.
        let lastMerge = NotificationRecorder(NSManagedObjectContext.didChangeObjectsNotification, object: follower) { note in
            (note.userInfo?[NSRefreshedObjectsKey] as? Set<NSManagedObject>)?.contains { $0.objectID == watchedID } == true
        }
        try await stack.context.perform {
            stack.context.object(with: watchedID).setValue(true, forKey: "done")
            try stack.context.save()
        }
        await lastMerge.waitUntilReceived(1)
        let (count, names, done) = try await follower.perform {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            let all = try follower.fetch(request)
            // The watched object, found by its ID: `object(with:)` hands out the one registered.
            return (all.count, Set(all.compactMap { $0.value(forKey: "name") as? String }), follower.object(with: watchedID).value(forKey: "done") as? Bool)
        }
        #expect(count == workers * saves + 1)
        #expect(names.count == workers * saves + 1)
        #expect(done == true)
    }
}
