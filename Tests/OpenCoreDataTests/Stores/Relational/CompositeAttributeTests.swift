import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// A composite attribute's value is a dictionary in memory and one column per leaf in a SQL
/// store (docs/sqlite-format.md §3: `ZSTREET`, `ZCITY`, `ZLATITUDE`…, no column for the composite),
/// and reads back the same from every store; predicates and sort descriptors reach its elements
/// with namespaced key paths.
@Suite struct CompositeAttributeTests {
    nonisolated(unsafe) static let lyon: [String: Any] = ["street": "Rue Mercière", "city": "Lyon", "location": ["latitude": 45.76, "longitude": 4.83]]
    nonisolated(unsafe) static let oslo: [String: Any] = ["street": "Karl Johans gate", "city": "Oslo", "location": ["latitude": 59.91, "longitude": 10.74]]

    private func savePlaces(in stack: ConformanceStack) throws {
        let context = stack.context()
        try context.performAndWait {
            ConformanceStack.insert("Place", ["name": "Bouchon", "address": Self.lyon], into: context)
            ConformanceStack.insert("Place", ["name": "Kafé", "address": Self.oslo], into: context)
            ConformanceStack.insert("Place", ["name": "Nowhere"], into: context)
            try context.save()
        }
    }

    private func names(_ context: NSManagedObjectContext, _ format: String? = nil, sortedBy key: String = "name", ascending: Bool = true) throws -> [String] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
            request.predicate = format.map { NSPredicate(format: $0) }
            request.sortDescriptors = [NSSortDescriptor(key: key, ascending: ascending), NSSortDescriptor(key: "name", ascending: true)]
            return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
        }
    }

    private func place(_ name: String, in context: NSManagedObjectContext) throws -> NSManagedObject {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
        request.predicate = NSPredicate(format: "name == %@", name)
        return try #require(try context.fetch(request).first)
    }

    @Test(arguments: ConformanceStore.builtIn)
    func theDictionaryRoundTripsAndItsElementsAreKeyPaths(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(try NSCompositeAttributeDescriptionTests.model(), in: directory)
        try savePlaces(in: stack)
        let reader = try stack.readerContext()
        try reader.performAndWait {
            let bouchon = try place("Bouchon", in: reader)
            let address = try #require(bouchon.value(forKey: "address") as? [String: Any])
            #expect(address["street"] as? String == "Rue Mercière")
            #expect(address["city"] as? String == "Lyon")
            #expect((address["location"] as? [String: Any])?["latitude"] as? Double == 45.76)
            #expect(bouchon.value(forKeyPath: "address.location.longitude") as? Double == 4.83)
            #expect(bouchon.value(forKey: "address.city") as? String == "Lyon")
            // Never set: no dictionary at all, as for any attribute without a value.
            #expect(try place("Nowhere", in: reader).value(forKey: "address") == nil)
        }
        #expect(try names(reader, "address.city == 'Oslo'") == ["Kafé"])
        #expect(try names(reader, "address.location.latitude > 50") == ["Kafé"])
        #expect(try names(reader, "address.street BEGINSWITH[c] 'rue'") == ["Bouchon"])
        #expect(try names(reader, "address.city == nil") == ["Nowhere"])
        #expect(try names(reader, sortedBy: "address.location.latitude", ascending: false) == ["Kafé", "Bouchon", "Nowhere"])
    }

    @Test(arguments: ConformanceStore.builtIn)
    func anElementSetThroughItsKeyPathIsSaved(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(try NSCompositeAttributeDescriptionTests.model(), in: directory)
        try savePlaces(in: stack)
        let context = stack.context()
        try context.performAndWait {
            let kafe = try place("Kafé", in: context)
            kafe.setValue("Bergen", forKeyPath: "address.city")
            kafe.setValue(60.39, forKeyPath: "address.location.latitude")
            #expect(kafe.changedValues().keys.sorted() == ["address"])
            let nowhere = try place("Nowhere", in: context)
            nowhere.setValue("Somewhere", forKeyPath: "address.city")
            let bouchon = try place("Bouchon", in: context)
            bouchon.setValue(nil, forKey: "address")
            try context.save()
            // The same values set again are no change.
            kafe.setValue("Bergen", forKeyPath: "address.city")
            #expect(kafe.hasChanges == false)
        }
        let reader = try stack.readerContext()
        try reader.performAndWait {
            let kafe = try place("Kafé", in: reader)
            #expect(kafe.value(forKeyPath: "address.city") as? String == "Bergen")
            #expect(kafe.value(forKeyPath: "address.street") as? String == "Karl Johans gate")
            #expect(kafe.value(forKeyPath: "address.location.latitude") as? Double == 60.39)
            #expect(kafe.value(forKeyPath: "address.location.longitude") as? Double == 10.74)
            #expect(try place("Nowhere", in: reader).value(forKey: "address") as? [String: String] == ["city": "Somewhere"])
            #expect(try place("Bouchon", in: reader).value(forKey: "address") == nil)
        }
        #expect(try names(reader, "address.city != nil") == ["Kafé", "Nowhere"])
    }

    /// A value that is not a dictionary of the composite's elements is refused at save, as a value
    /// of the wrong type for any attribute is, and nothing is written.
    @Test(arguments: ConformanceStore.builtIn)
    func aValueThatIsNotTheCompositesIsRefusedAtSave(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(try NSCompositeAttributeDescriptionTests.model(), in: directory)
        let context = stack.context()
        for value: Any in ["Lyon", ["town": "Lyon"], ["location": ["latitude": "north"]]] {
            let error = try context.performAndWait {
                ConformanceStack.insert("Place", ["name": "Bad", "address": value], into: context)
                let error = try #require(throws: NSError.self) { try context.save() }
                context.rollback()
                return error
            }
            #expect(error.code == NSManagedObjectValidationError, "\(value): \(error)")
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "address")
        }
        #expect(try names(try stack.readerContext()) == [])
    }

    /// A composite built in code: its required elements are required whenever it has a value,
    /// and its elements' model rules hold, reported under the element's key path.
    @Test func requiredElementsAndElementRulesAreValidatedAtSave() throws {
        let street = TestModels.attribute("street", .stringAttributeType, optional: false)
        let floor = TestModels.attribute("floor", .integer16AttributeType)
        floor.rules.maximum = 200
        let address = NSCompositeAttributeDescription()
        address.name = "address"
        address.elements = [street, floor]
        let model = NSManagedObjectModel()
        model.entities = [TestModels.entity("Office", [TestModels.attribute("name", .stringAttributeType), address])]
        let directory = TemporaryDirectory()
        let context = try ConformanceStore.sqlite.stack(model, in: directory).context()
        try context.performAndWait {
            let office = ConformanceStack.insert("Office", ["name": "HQ", "address": ["floor": 3]], into: context)
            let missing = try #require(throws: NSError.self) { try context.save() }
            #expect(missing.code == NSValidationMissingMandatoryPropertyError)
            #expect(missing.userInfo[NSValidationKeyErrorKey] as? String == "address.street")

            office.setValue(["street": "Main St", "floor": 500], forKey: "address")
            let tooHigh = try #require(throws: NSError.self) { try context.save() }
            #expect(tooHigh.code == NSValidationNumberTooLargeError)

            office.setValue(4, forKeyPath: "address.floor")
            try context.save()
            // Without a value at all, the optional composite asks nothing of its elements.
            office.setValue(nil, forKey: "address")
            try context.save()
        }
    }

    /// The SQLite store's table is Core Data's: one column per leaf, named after the leaf.
    @Test func theSQLiteTableHasALeafColumnPerElement() throws {
        let directory = TemporaryDirectory()
        let stack = try ConformanceStore.sqlite.stack(try NSCompositeAttributeDescriptionTests.model(), in: directory)
        try savePlaces(in: stack)
        let (columns, row) = try DatabaseQueue(path: stack.url.path).read { db in
            (try db.columns(in: "ZPLACE").map(\.name),
             try Row.fetchOne(db, sql: "SELECT ZSTREET, ZCITY, ZLATITUDE, ZLONGITUDE FROM ZPLACE WHERE ZNAME = 'Kafé'"))
        }
        #expect(Set(columns) == ["Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZSTREET", "ZCITY", "ZLATITUDE", "ZLONGITUDE"])
        let values = try #require(row)
        #expect(values[0] as String? == "Karl Johans gate")
        #expect(values[1] as String? == "Oslo")
        #expect(values[2] as Double? == 59.91)
        #expect(values[3] as Double? == 10.74)
    }

    /// Persistent history names the composite among an update's properties when an element
    /// changes, on the stores that keep history.
    @Test(arguments: ConformanceStore.builtIn.filter(\.keepsHistory))
    func historyRecordsTheCompositeAsTheUpdatedProperty(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(try NSCompositeAttributeDescriptionTests.model(), in: directory, options: [NSPersistentHistoryTrackingKey: true])
        try savePlaces(in: stack)
        let context = stack.context()
        try context.performAndWait {
            try place("Kafé", in: context).setValue("Bergen", forKeyPath: "address.city")
            try context.save()
        }
        let changes = try context.performAndWait {
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
            return try #require(result?.result as? [NSPersistentHistoryTransaction]).flatMap { $0.changes ?? [] }
        }
        #expect(changes.filter { $0.changeType == .insert }.count == 3)
        let update = try #require(changes.first { $0.changeType == .update })
        #expect(update.updatedProperties?.map(\.name) == ["address"])
    }

    /// A composite preserved after deletion comes back in the delete's tombstone as a nested
    /// dictionary, as Core Data builds tombstones from element paths (`address.location.latitude`).
    @Test(arguments: ConformanceStore.builtIn.filter(\.keepsHistory))
    func aPreservedCompositeIsInTheTombstone(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let model = try NSCompositeAttributeDescriptionTests.model()
        model.entitiesByName["Place"]!.attributesByName["address"]!.preservesValueInHistoryOnDeletion = true
        let stack = try kind.stack(model, in: directory, options: [NSPersistentHistoryTrackingKey: true])
        try savePlaces(in: stack)
        let context = stack.context()
        try context.performAndWait {
            context.delete(try place("Kafé", in: context))
            try context.save()
            let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Place"))
            delete.fetchRequest.predicate = NSPredicate(format: "name == 'Bouchon'")
            _ = try context.execute(delete)
        }
        let tombstones = try context.performAndWait {
            let result = try context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)) as? NSPersistentHistoryResult
            return try #require(result?.result as? [NSPersistentHistoryTransaction]).flatMap { $0.changes ?? [] }
                .filter { $0.changeType == .delete }.map { $0.tombstone ?? [:] }
        }
        #expect(tombstones.count == 2)
        let saved = try #require(tombstones.first?["address"] as? [String: Any])
        #expect(CompositeValue.isEqual(saved, Self.oslo), "\(saved)")
        let batched = try #require(tombstones.last?["address"] as? [String: Any])
        #expect(CompositeValue.isEqual(batched, Self.lyon), "\(batched)")
    }
}

/// Composites in the requests that bypass objects: a batch insert writes their leaves, a
/// dictionary fetch hands them out as dictionaries, a batch update refuses them clearly.
@Suite struct CompositeRequestTests {
    @Test(arguments: ConformanceStore.builtIn.filter(\.runsBatchRequests))
    func aBatchInsertWritesTheLeavesAndADictionaryFetchReadsThemBack(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(try NSCompositeAttributeDescriptionTests.model(), in: directory)
        let context = stack.context()
        let rows: [[String: Any]] = [
            ["name": "Bouchon", "address": CompositeAttributeTests.lyon],
            ["name": "Kafé", "address": ["city": "Oslo"]],
            ["name": "Nowhere"],
        ]
        try context.performAndWait {
            let insert = NSBatchInsertRequest(entityName: "Place", objects: rows)
            insert.resultType = .count
            #expect((try context.execute(insert) as? NSBatchInsertResult)?.result as? Int == 3)

            let request = NSFetchRequest<NSDictionary>(entityName: "Place")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["name", "address"]
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let fetched = try context.fetch(request).map { $0 as? [String: Any] ?? [:] }
            #expect(fetched.map { $0["name"] as? String } == ["Bouchon", "Kafé", "Nowhere"])
            let lyon = try #require(fetched[0]["address"] as? [String: Any])
            #expect(CompositeValue.isEqual(lyon, CompositeAttributeTests.lyon), "\(lyon)")
            #expect(fetched[1]["address"] as? [String: String] == ["city": "Oslo"])
            #expect(fetched[2]["address"] == nil)

            // An element of a composite by its key path.
            request.propertiesToFetch = ["address.city"]
            #expect(try context.fetch(request).compactMap { $0["address.city"] as? String } == ["Lyon", "Oslo"])

            let update = NSBatchUpdateRequest(entityName: "Place")
            update.propertiesToUpdate = ["address": ["city": "Paris"]]
            let error = try #require(throws: NSError.self) { try context.execute(update) }
            #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Place")) == 3)
        }
    }
}
