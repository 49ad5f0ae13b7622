import Testing
@testable import OpenCoreData

/// Sort descriptors order the same way in SQL (registered collations), in memory and in the
/// in-memory store, for every selector Core Data's SQLite store accepts; pending changes merge
/// into sorted results exactly where the store will put them once saved.
@Suite struct SortDescriptorTests {
    static let labels: [String?] = [
        "b", "B", "a", "A", "é", "e", "E", "z", "Z", "item10", "item2", "Item1", "ä", "_x", "1", "10", "2", "", "Ça", "ca",
        "cote", "côte", "coté", "côté", nil, "a", "Zoë", "a\u{0}b", "ITEM2", "e\u{301}", "f", "Cz",
    ]

    static let selectors = [
        "compare:", "caseInsensitiveCompare:", "localizedCompare:", "localizedCaseInsensitiveCompare:", "localizedStandardCompare:",
    ]

    private func insertTags(_ labels: some Sequence<String?>, into context: NSManagedObjectContext) -> [NSManagedObject] {
        labels.map { label in
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue(label, forKey: "label")
            return tag
        }
    }

    private func fetch(_ context: NSManagedObjectContext, _ entity: String, _ descriptors: [NSSortDescriptor]?) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.sortDescriptors = descriptors
        return try context.fetch(request)
    }

    /// `objects` sorted in memory by `descriptors`, ties by primary key as the store breaks them.
    private func sortedInMemory(_ objects: [NSManagedObject], _ descriptors: [NSSortDescriptor]) -> [NSManagedObject] {
        objects.sorted { a, b in
            for descriptor in descriptors {
                let order = descriptor.compare(a, to: b)
                if order != .orderedSame { return order == .orderedAscending }
            }
            return a.objectID.primaryKey < b.objectID.primaryKey
        }
    }

    private func labels(_ objects: [NSManagedObject]) -> [String?] { objects.map { $0.value(forKey: "label") as? String } }

    @Test(arguments: selectors, [true, false])
    func storeOrderIsMemoryOrder(selector: String, ascending: Bool) throws {
        let directory = TemporaryDirectory()
        let sqlite = try TestStack(model: TestModels.library(), directory: directory)
        let memoryStore = try TestStack(model: TestModels.library(), directory: directory, type: .inMemory, name: "Memory")
        let descriptors = [NSSortDescriptor(key: "label", ascending: ascending, selector: selector)]
        var sqlLabels: [String?] = []
        try sqlite.context.performAndWait {
            _ = insertTags(Self.labels, into: sqlite.context)
            try sqlite.context.save()
            sqlite.context.reset()
            let sorted = try fetch(sqlite.context, "Tag", descriptors)
            let unsorted = try fetch(sqlite.context, "Tag", nil)
            #expect(sorted.map(\.objectID) == sortedInMemory(unsorted, descriptors).map(\.objectID))
            sqlLabels = labels(sorted)
        }
        try memoryStore.context.performAndWait {
            _ = insertTags(Self.labels, into: memoryStore.context)
            try memoryStore.context.save()
            #expect(labels(try fetch(memoryStore.context, "Tag", descriptors)) == sqlLabels)
        }
        // The selectors really differ: numbers in strings, case, accents.
        let ordered = ascending ? sqlLabels : sqlLabels.reversed()
        let item2 = ordered.firstIndex(of: "item2")!
        let item10 = ordered.firstIndex(of: "item10")!
        #expect((item2 < item10) == (selector == "localizedStandardCompare:"), "\(ordered)")
        let lowerA = ordered.firstIndex(of: "a")!
        let upperB = ordered.firstIndex(of: "B")!
        #expect((lowerA < upperB) == (selector != "compare:"), "\(ordered)")
        #expect(ordered.first! == nil, "nil sorts first")
    }

    @Test(arguments: selectors)
    func pendingChangesSortAsTheStoreWillOnceSaved(selector: String) throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let descriptors = [NSSortDescriptor(key: "label", ascending: true, selector: selector)]
        try stack.context.performAndWait {
            let saved = insertTags(Self.labels.prefix(15), into: stack.context)
            try stack.context.save()
            // Unsaved: inserts that tie with saved labels and with each other, an update, a delete.
            _ = insertTags(Self.labels.dropFirst(15) + ["a", "A", "b"], into: stack.context)
            saved[0].setValue("zzz", forKey: "label")
            stack.context.delete(saved[1])
            let pending = try fetch(stack.context, "Tag", descriptors)
            #expect(pending.count == Self.labels.count + 3 - 1)
            try stack.context.save()
            let stored = try fetch(stack.context, "Tag", descriptors)
            #expect(pending.map(ObjectIdentifier.init) == stored.map(ObjectIdentifier.init), "\(labels(pending)) vs \(labels(stored))")
        }
    }

    @Test func pendingChangesAreJudgedByTheirCurrentValues() throws {
        let library = try LibraryFixture()
        try library.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.predicate = NSPredicate(format: "pages > 300")
            request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
            library["b1"].setValue(10, forKey: "pages")  // no longer matches
            library["b8"].setValue(301, forKey: "pages")  // now matches
            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: library.context)
            book.setValue("New", forKey: "title")
            book.setValue(400, forKey: "pages")
            let titles = try library.context.fetch(request).map { $0.value(forKey: "title") as! String }
            #expect(titles == ["100% ; DROP TABLE ZBOOK; --", "L'Assommoir", "New", "The Hobbit", "orphan"])
            request.fetchLimit = 2
            request.fetchOffset = 1
            #expect(try library.context.fetch(request).map { $0.value(forKey: "title") as! String } == ["L'Assommoir", "New"])
        }
    }

    @Test func keyPathsThroughToOneAndCollectionOperatorsSortAlike() throws {
        let library = try LibraryFixture()
        let cases: [(String, [NSSortDescriptor])] = [
            ("Book", [NSSortDescriptor(key: "author.name", ascending: true, selector: "localizedCaseInsensitiveCompare:"), NSSortDescriptor(key: "title", ascending: false)]),
            ("Book", [NSSortDescriptor(key: "publisher.name", ascending: false), NSSortDescriptor(key: "pages", ascending: true)]),
            ("Author", [NSSortDescriptor(key: "books.@count", ascending: false), NSSortDescriptor(key: "name", ascending: true, selector: "caseInsensitiveCompare:")]),
            ("Publisher", [NSSortDescriptor(key: "books.@sum.pages", ascending: true)]),
        ]
        try library.context.performAndWait {
            for (entity, descriptors) in cases {
                let sql = try fetch(library.context, entity, descriptors)
                #expect(sql.map(\.objectID) == sortedInMemory(try fetch(library.context, entity, nil), descriptors).map(\.objectID), "\(descriptors)")
            }
            do {
                _ = try fetch(library.context, "Author", [NSSortDescriptor(key: "books.title", ascending: true)])
                Issue.record("sorted by a to-many key path")
            } catch {
                #expect((error as NSError).code == NSPersistentStoreUnsupportedRequestTypeError)
            }
            do {
                _ = try fetch(library.context, "Author", [NSSortDescriptor(key: "name", ascending: true, selector: "compareByShoeSize:")])
                Issue.record("sorted with an unknown selector")
            } catch {
                #expect((error as NSError).code == NSPersistentStoreUnsupportedRequestTypeError)
            }
        }
    }

    @Test func reversedDescriptorKeepsKeyAndSelector() {
        let descriptor = NSSortDescriptor(key: "author.name", ascending: true, selector: "localizedStandardCompare:")
        let reversed = descriptor.reversedSortDescriptor as! NSSortDescriptor
        #expect(reversed.key == "author.name" && reversed.selectorName == "localizedStandardCompare:" && !reversed.ascending)
        #expect(reversed.compare(["author": ["name": "item2"]], to: ["author": ["name": "item10"]]) == .orderedDescending)
    }
}
