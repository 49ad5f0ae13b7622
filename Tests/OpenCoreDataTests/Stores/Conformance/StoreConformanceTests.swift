import Foundation
import Testing

@testable import OpenCoreData

/// The store contract, as a user sees it: the same bodies on every store (`ConformanceStore`).
@Suite struct StoreConformanceTests {
    typealias Stack = ConformanceStack

    /// Twenty to-do items: "Item 0"…"Item 19", a day apart, every third done.
    static func items(in context: NSManagedObjectContext) throws {
        try context.performAndWait {
            for i in 0..<20 {
                Stack.insert("TSPItem", [
                    "name": "Item \(i)", "createdAt": Date(timeIntervalSinceReferenceDate: Double(i) * 86_400), "done": i % 3 == 0,
                ], into: context)
            }
            try context.save()
        }
    }

    /// Runs `body` on the queue of a reader of `items` in a new store of `kind`, with a new
    /// request for the items.
    static func readingItems(
        _ kind: ConformanceStore, _ body: (NSManagedObjectContext, NSFetchRequest<NSManagedObject>) throws -> Void
    ) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.todo(), in: directory)
        try items(in: stack.context())
        let reader = try stack.readerContext()
        try reader.performAndWait { try body(reader, NSFetchRequest<NSManagedObject>(entityName: "TSPItem")) }
    }

    static func names(_ objects: [NSManagedObject]) -> [String] { objects.compactMap { $0.value(forKey: "name") as? String } }

    @Test(arguments: ConformanceStore.allCases)
    func everyAttributeTypeRoundTrips(_ kind: ConformanceStore) throws {
        let entity = TestModels.entity("Everything", [
            TestModels.attribute("i16", .integer16AttributeType), TestModels.attribute("i32", .integer32AttributeType),
            TestModels.attribute("i64", .integer64AttributeType), TestModels.attribute("dec", .decimalAttributeType),
            TestModels.attribute("dbl", .doubleAttributeType), TestModels.attribute("flt", .floatAttributeType),
            TestModels.attribute("str", .stringAttributeType), TestModels.attribute("flag", .booleanAttributeType),
            TestModels.attribute("when", .dateAttributeType), TestModels.attribute("bytes", .binaryDataAttributeType),
            TestModels.attribute("uuid", .UUIDAttributeType), TestModels.attribute("link", .URIAttributeType),
            TestModels.attribute("empty", .stringAttributeType),
        ])
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let directory = TemporaryDirectory()
        let stack = try kind.stack(model, in: directory)
        let id = UUID()
        let when = Date(timeIntervalSinceReferenceDate: 123_456.789)
        let writer = stack.context()
        try writer.performAndWait {
            Stack.insert("Everything", [
                "i16": Int16(-7), "i32": Int32(70_000), "i64": Int64.max, "dec": Decimal(string: "10.11")!, "dbl": 2.5,
                "flt": Float(1.25), "str": "héllo 'quoted'; DROP TABLE", "flag": true, "when": when, "bytes": Data([0, 1, 2, 255]),
                "uuid": id, "link": URL(string: "https://example.com/a?b=c")!,
            ], into: writer)
            try writer.save()
        }
        let reader = try stack.readerContext()
        try reader.performAndWait {
            let o = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Everything")).first)
            #expect(o.value(forKey: "i16") as? Int16 == -7)
            #expect(o.value(forKey: "i32") as? Int == 70_000)
            #expect(o.value(forKey: "i64") as? Int64 == Int64.max)
            #expect((o.value(forKey: "dec") as? NSDecimalNumber)?.decimalValue == Decimal(string: "10.11"))
            #expect(o.value(forKey: "dbl") as? Double == 2.5)
            #expect(o.value(forKey: "flt") as? Float == 1.25)
            #expect(o.value(forKey: "str") as? String == "héllo 'quoted'; DROP TABLE")
            #expect(o.value(forKey: "flag") as? Bool == true)
            #expect(o.value(forKey: "when") as? Date == when)
            #expect(o.value(forKey: "bytes") as? Data == Data([0, 1, 2, 255]))
            #expect(o.value(forKey: "uuid") as? UUID == id)
            #expect(o.value(forKey: "link") as? URL == URL(string: "https://example.com/a?b=c"))
            #expect(o.value(forKey: "empty") == nil)
        }
    }

    /// A batched result (`batchedFetch`) reads the objects `fetch` reads, in order, across batches
    /// and stores; passed batches' objects go.
    @Test(arguments: ConformanceStore.allCases)
    func aBatchedResultReadsWhatFetchReads(_ kind: ConformanceStore) throws {
        try Self.readingItems(kind) { (reader, request) throws -> Void in
            request.predicate = NSPredicate(format: "name CONTAINS '1' OR done == YES")
            request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: false)]
            request.fetchBatchSize = 3
            let expected = Self.names(try reader.fetch(request))
            reader.reset()
            weak var first: NSManagedObject?
            let result = try reader.batchedFetch(request)
            var names: [String] = []
            for (index, object) in result.enumerated() {
                if index == 0 { first = object }
                names.append(object.value(forKey: "name") as? String ?? "?")
            }
            #expect(expected.count == 15 && names == expected)
            // A custom store answers with objects, which the result then holds whole.
            if ConformanceStore.builtIn.contains(kind) { #expect(first == nil, "the first batch was released") }
        }
    }

    @Test(arguments: ConformanceStore.allCases)
    func predicatesSortsAndPagesSelectTheSameObjects(_ kind: ConformanceStore) throws {
        try Self.readingItems(kind) { (reader, request) throws -> Void in
            request.predicate = NSPredicate(format: "done == NO AND name BEGINSWITH[c] %@", "item 1")
            request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: false)]
            request.fetchOffset = 1
            request.fetchLimit = 3
            // Not done, "Item 1…": 1, 10, 11, 13, 14, 16, 17, 19; newest first, skip one, three.
            #expect(Self.names(try reader.fetch(request)) == ["Item 17", "Item 16", "Item 14"])
            request.fetchOffset = 0
            request.fetchLimit = 0
            #expect(try reader.count(for: request) == 8)

            let patterns: [(String, [Any], Int)] = [
                ("name LIKE %@", ["Item 1?"], 10),
                ("name CONTAINS[cd] %@", ["ITÉM 1"], 11),
                ("name MATCHES %@", ["Item [0-4]"], 5),
                ("name IN %@", [["Item 2", "Item 3", "nothing"]], 2),
                ("createdAt >= %@ AND createdAt < %@", [Date(timeIntervalSinceReferenceDate: 5 * 86_400), Date(timeIntervalSinceReferenceDate: 8 * 86_400)], 3),
                ("NOT (done == YES) OR name == %@", ["Item 0"], 14),
            ]
            for (format, arguments, expected) in patterns {
                let counted = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                counted.predicate = NSPredicate(format: format, argumentArray: arguments)
                #expect(try reader.fetch(counted).count == expected, "\(format)")
                #expect(try reader.count(for: counted) == expected, "count: \(format)")
            }
        }
    }

    @Test(arguments: ConformanceStore.allCases)
    func relationshipsFaultInBothWays(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.library(), in: directory)
        let writer = stack.context()
        try writer.performAndWait {
            let author = Stack.insert("Author", ["name": "Le Guin"], into: writer)
            let classic = Stack.insert("Tag", ["label": "classic"], into: writer)
            let sea = Stack.insert("Tag", ["label": "sea"], into: writer)
            for (title, tags) in [("Earthsea", [classic, sea]), ("Tehanu", [sea]), ("Lathe", [classic])] {
                let book = Stack.insert("Book", ["title": title, "isbn": title, "author": author], into: writer)
                book.setValue(Set(tags), forKey: "tags")
            }
            try writer.save()
        }
        let reader = try stack.readerContext()
        try reader.performAndWait {
            let author = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).first)
            let books = try #require(author.value(forKey: "books") as? Set<NSManagedObject>)
            #expect(Set(books.compactMap { $0.value(forKey: "title") as? String }) == ["Earthsea", "Tehanu", "Lathe"])
            for book in books { #expect(book.value(forKey: "author") as? NSManagedObject === author) }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Tag")
            request.predicate = NSPredicate(format: "label == %@", "sea")
            let sea = try #require(try reader.fetch(request).first)
            let seaBooks = sea.value(forKey: "books") as? Set<NSManagedObject> ?? []
            #expect(Set(seaBooks.compactMap { $0.value(forKey: "title") as? String }) == ["Earthsea", "Tehanu"])
            let byTag = NSFetchRequest<NSManagedObject>(entityName: "Book")
            byTag.predicate = NSPredicate(format: "ANY tags.label == %@ AND author.name == %@", "classic", "Le Guin")
            #expect(Set(try reader.fetch(byTag).compactMap { $0.value(forKey: "title") as? String }) == ["Earthsea", "Lathe"])
        }
    }

    @Test(arguments: ConformanceStore.allCases)
    func anOrderedToManyKeepsItsOrder(_ kind: ConformanceStore) throws {
        let list = TestModels.entity("List", [TestModels.attribute("title", .stringAttributeType)])
        let entry = TestModels.entity("Entry", [TestModels.attribute("text", .stringAttributeType)])
        TestModels.connect(list, many: "entries", to: entry, inverse: "list")
        (list.propertiesByName["entries"] as? NSRelationshipDescription)?.isOrdered = true
        let model = NSManagedObjectModel()
        model.entities = [list, entry]
        let directory = TemporaryDirectory()
        let stack = try kind.stack(model, in: directory)
        let writer = stack.context()
        try writer.performAndWait {
            let groceries = Stack.insert("List", ["title": "groceries"], into: writer)
            let entries = ["milk", "eggs", "bread", "apples"].map { Stack.insert("Entry", ["text": $0], into: writer) }
            groceries.setValue(NSOrderedSet(array: [entries[2], entries[0], entries[3], entries[1]]), forKey: "entries")
            try writer.save()
        }
        let reader = try stack.readerContext()
        try reader.performAndWait {
            let groceries = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "List")).first)
            let entries = try #require(groceries.value(forKey: "entries") as? NSOrderedSet)
            #expect(entries.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "text") as? String } == ["bread", "milk", "apples", "eggs"])
        }
    }

    /// Two contexts change the same object: the second save fails with 133020 under the error
    /// policy, and the store keeps the first; under property-object-trump it wins.
    @Test(arguments: ConformanceStore.builtIn)
    func conflictingSavesAreCaughtByOptimisticLocking(_ kind: ConformanceStore) throws {
        for policy in [NSErrorMergePolicy, NSMergeByPropertyObjectTrumpMergePolicy] {
            let directory = TemporaryDirectory()
            let stack = try kind.stack(TestModels.todo(), in: directory)
            let first = stack.context()
            let id = try first.performAndWait {
                let item = Stack.insert("TSPItem", ["name": "original", "done": false], into: first)
                try first.save()
                return item.objectID
            }
            let second = stack.context(mergePolicy: policy)
            let theirs = second.performAndWait {
                let item = second.object(with: id)
                _ = item.value(forKey: "name")
                return item
            }
            try first.performAndWait {
                first.object(with: id).setValue("first", forKey: "name")
                try first.save()
            }
            let result: Result<Void, NSError> = second.performAndWait {
                theirs.setValue("second", forKey: "name")
                do { try second.save(); return .success(()) } catch { return .failure(error as NSError) }
            }
            let reader = try stack.readerContext()
            let stored = try reader.performAndWait { try reader.existingObject(with: id).value(forKey: "name") as? String }
            if policy as AnyObject === NSErrorMergePolicy as AnyObject {
                guard case .failure(let error) = result else {
                    Issue.record("the second save should fail")
                    continue
                }
                #expect(error.code == NSManagedObjectMergeError)
                #expect(stored == "first")
            } else {
                #expect((try? result.get()) != nil)
                #expect(stored == "second")
            }
        }
    }

    @Test(arguments: ConformanceStore.builtIn)
    func aBrokenUniquenessConstraintFailsWith133021AndWritesNothing(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.library(), in: directory)
        let context = stack.context()
        try context.performAndWait {
            Stack.insert("Book", ["title": "First", "isbn": "978-0"], into: context)
            try context.save()
            let second = Stack.insert("Book", ["title": "Second", "isbn": "978-0"], into: context)
            let third = Stack.insert("Book", ["title": "Third", "isbn": "978-1"], into: context)
            let error = try #require(throws: NSError.self) { try context.save() }
            #expect(error.code == NSManagedObjectConstraintMergeError)
            let conflict = (error.userInfo[NSPersistentStoreSaveConflictsErrorKey] as? [NSConstraintConflict])?.first
            #expect(conflict?.constraint == ["isbn"])
            #expect(second.objectID.isTemporaryID && third.objectID.isTemporaryID)
        }
        let reader = try stack.readerContext()
        try reader.performAndWait { () throws -> Void in
            #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 1)
        }
    }

    @Test(arguments: ConformanceStore.allCases)
    func deleteRulesCascadeAndDeny(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.library(), in: directory)
        let context = stack.context()
        try context.performAndWait {
            let author = Stack.insert("Author", ["name": "A"], into: context)
            let publisher = Stack.insert("Publisher", ["name": "P"], into: context)
            Stack.insert("Book", ["title": "One", "isbn": "1", "author": author, "publisher": publisher], into: context)
            Stack.insert("Book", ["title": "Two", "isbn": "2", "author": author], into: context)
            try context.save()
            context.delete(publisher)
            let denied = try #require(throws: NSError.self) { try context.save() }
            #expect(denied.code == NSValidationRelationshipDeniedDeleteError)
            context.rollback()
            context.delete(author)
            try context.save()
        }
        let reader = try stack.readerContext()
        try reader.performAndWait { () throws -> Void in
            #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 0)
            #expect(try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: "Publisher")) == 1)
        }
    }

    @Test(arguments: ConformanceStore.allCases)
    func objectIDAndDictionaryResults(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.todo(), in: directory)
        try Self.items(in: stack.context())
        let reader = try stack.readerContext()
        try reader.performAndWait {
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "TSPItem")
            ids.resultType = .managedObjectIDResultType
            ids.predicate = NSPredicate(format: "done == YES")
            let found = try reader.fetch(ids)
            #expect(found.count == 7)
            #expect(Set(found.compactMap { try? reader.existingObject(with: $0).value(forKey: "name") as? String }).contains("Item 18"))

            let count = NSExpressionDescription()
            count.name = "count"
            count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "name")])
            count.expressionResultType = .integer64AttributeType
            let grouped = NSFetchRequest<NSDictionary>(entityName: "TSPItem")
            grouped.resultType = .dictionaryResultType
            grouped.propertiesToFetch = ["done", count]
            grouped.propertiesToGroupBy = ["done"]
            grouped.sortDescriptors = [NSSortDescriptor(key: "done", ascending: true)]
            guard ConformanceStore.builtIn.contains(kind) else {
                // Grouped dictionaries are a custom store's to compute; these two refuse them,
                // and the refusal reaches the caller as an error, not a crash.
                #expect(throws: NSError.self) { try reader.fetch(grouped) }
                return
            }
            let rows = try reader.fetch(grouped)
            #expect(rows.map { ($0["done"] as? Bool ?? false, ($0["count"] as? NSNumber)?.intValue ?? -1) }.map { "\($0.0) \($0.1)" } == ["false 13", "true 7"])
        }
    }

    @Test(arguments: ConformanceStore.allCases)
    func batchRequestsRunOrAreRefusedAsCoreDataDoes(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.todo(), in: directory)
        try Self.items(in: stack.context())
        let context = stack.context()
        try context.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "TSPItem")
            update.predicate = NSPredicate(format: "done == NO")
            update.propertiesToUpdate = ["done": true]
            update.resultType = .updatedObjectsCountResultType
            guard kind.runsBatchRequests else {
                let error = try #require(throws: NSError.self) { try context.execute(update) }
                #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
                return
            }
            #expect((try context.execute(update) as? NSBatchUpdateResult)?.result as? Int == 13)
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "TSPItem"))
            delete.resultType = .resultTypeCount
            #expect((try context.execute(delete) as? NSBatchDeleteResult)?.result as? Int == 20)
        }
    }

    @Test(arguments: ConformanceStore.allCases)
    func persistentHistoryIsKeptOrRefused(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.todo(), in: directory, options: [NSPersistentHistoryTrackingKey: true])
        let context = stack.context()
        context.transactionAuthor = "conformance"
        try context.performAndWait {
            Stack.insert("TSPItem", ["name": "tracked"], into: context)
            try context.save()
            let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
            guard kind.keepsHistory else {
                let error = try #require(throws: NSError.self) { try context.execute(request) }
                #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
                return
            }
            let transactions = try #require((try context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction])
            #expect(transactions.count == 1)
            #expect(transactions.first?.author == "conformance")
            #expect(transactions.first?.changes?.map(\.changeType) == [.insert])
        }
    }

    @Test(arguments: ConformanceStore.builtIn)
    func metadataNamesTheStoreAndKeepsTheAppsKeys(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.todo(), in: directory)
        #expect(stack.store.metadata[NSStoreTypeKey] as? String == kind.type.rawValue)
        #expect(stack.store.metadata[NSStoreUUIDKey] as? String == stack.store.identifier)
        #expect(TestModels.todo().isConfiguration(withName: nil, compatibleWithStoreMetadata: stack.store.metadata))
        var metadata = stack.store.metadata ?? [:]
        metadata["appVersion"] = "2.1"
        stack.coordinator.setMetadata(metadata, for: stack.store)
        let context = stack.context()
        try context.performAndWait {
            Stack.insert("TSPItem", ["name": "saved with metadata"], into: context)
            try context.save()
        }
        #expect(stack.store.metadata["appVersion"] as? String == "2.1")
        if kind.isPersistent {
            let reader = try stack.readerContext()
            let store = try #require(reader.persistentStoreCoordinator?.persistentStores.first)
            #expect(store.metadata["appVersion"] as? String == "2.1")
            #expect(store.identifier == stack.store.identifier)
        }
    }

    @Test(arguments: ConformanceStore.allCases)
    func permanentIDsComeBeforeTheSaveAndStay(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.todo(), in: directory)
        let context = stack.context()
        let id = try context.performAndWait {
            let item = Stack.insert("TSPItem", ["name": "early"], into: context)
            try context.obtainPermanentIDs(for: [item])
            #expect(!item.objectID.isTemporaryID)
            let id = item.objectID
            try context.save()
            #expect(item.objectID == id)
            return id
        }
        let reader = try stack.readerContext()
        let uri = id.uriRepresentation()
        try reader.performAndWait {
            let found = try #require(reader.persistentStoreCoordinator?.managedObjectID(forURIRepresentation: uri))
            #expect(try reader.existingObject(with: found).value(forKey: "name") as? String == "early")
        }
    }
}
