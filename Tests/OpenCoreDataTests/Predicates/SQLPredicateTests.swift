import Testing
@testable import OpenCoreData

/// Fetches through the SQLite store must select exactly what in-memory evaluation selects.
@Suite struct SQLPredicateTests {
    /// A SQLite stack in a fresh temporary directory, removed when the value goes away.
    final class Stack {
        let directory: URL
        let context: NSManagedObjectContext
        var items: [NSManagedObject] = []
        var ann: NSManagedObject!

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("SQLPredicateTests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
            _ = try coordinator.addPersistentStore(type: .sqlite, at: directory.appendingPathComponent("Items.sqlite"))
            context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        static func attribute(_ name: String, _ type: NSAttributeType) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            return attribute
        }

        /// Item(name, count, done, createdAt, owner → Owner); Owner(name, items ↠ Item).
        static func model() -> NSManagedObjectModel {
            let item = NSEntityDescription()
            item.name = "Item"
            item.managedObjectClassName = "NSManagedObject"
            let owner = NSEntityDescription()
            owner.name = "Owner"
            owner.managedObjectClassName = "NSManagedObject"
            let toOwner = NSRelationshipDescription()
            toOwner.name = "owner"
            toOwner.destinationEntity = owner
            toOwner.maxCount = 1
            toOwner.isOptional = true
            let toItems = NSRelationshipDescription()
            toItems.name = "items"
            toItems.destinationEntity = item
            toItems.maxCount = 0
            toItems.isOptional = true
            toOwner.inverseRelationship = toItems
            toItems.inverseRelationship = toOwner
            item.properties = [
                attribute("name", .stringAttributeType), attribute("count", .integer64AttributeType),
                attribute("done", .booleanAttributeType), attribute("createdAt", .dateAttributeType), toOwner,
            ]
            owner.properties = [attribute("name", .stringAttributeType), toItems]
            let model = NSManagedObjectModel()
            model.entities = [item, owner]
            return model
        }
    }

    static let start = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// Names chosen to break naive SQL: quotes, semicolons, keywords, LIKE and GLOB wildcards.
    static let names: [String?] = [
        "Item", "item", "ITEM", "It's", "semi;colon", "x' OR '1'='1", "DROP TABLE ZITEM; --", "100% _done", "Café", nil,
        "a*b?[c]",
    ]

    static func makeStack() throws -> Stack {
        let stack = try Stack()
        try stack.context.performAndWait {
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: stack.context)
            ann.setValue("Ann", forKey: "name")
            let bob = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: stack.context)
            bob.setValue("Bob", forKey: "name")
            for (index, name) in names.enumerated() {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context)
                item.setValue(name, forKey: "name")
                item.setValue(index + 1, forKey: "count")
                item.setValue([1, 4, 7].contains(index), forKey: "done")
                item.setValue(index == 3 ? nil : start.addingTimeInterval(Double(index + 1) * 10), forKey: "createdAt")
                item.setValue(index < 2 ? ann : (index == 2 ? bob : nil), forKey: "owner")
                stack.items.append(item)
            }
            stack.ann = ann
            try stack.context.save()
        }
        return stack
    }

    /// The predicates and how many of the 11 items each selects.
    static func cases(_ stack: Stack) -> [(String, [Any], Int)] {
        let items = stack.items
        return [
            ("done == NO AND count > %d", [3], 6),
            ("name BEGINSWITH[c] 'it'", [], 4),
            ("name BEGINSWITH 'It'", [], 2),
            ("name IN %@", [["Item", "semi;colon", "DROP TABLE ZITEM; --", "nope"]], 3),
            ("name IN[c] {'item', 'none'}", [], 3),
            ("createdAt > %@", [start.addingTimeInterval(55)], 6),
            ("createdAt <= %@", [start.addingTimeInterval(20)], 2),
            ("createdAt == nil", [], 1),
            ("name == nil", [], 1),
            ("name != nil", [], 10),
            ("NOT (name == 'Item')", [], 10),
            ("name != 'Item'", [], 10),
            ("NOT (count > 5)", [], 5),
            ("name == %@", ["x' OR '1'='1"], 1),
            ("name == %@", ["It's"], 1),
            ("name == \"DROP TABLE ZITEM; --\"", [], 1),
            ("name CONTAINS '%'", [], 1),
            ("name CONTAINS '_'", [], 1),
            ("name LIKE '*;*'", [], 2),
            ("name LIKE 'a\\\\*b*'", [], 1),
            ("name LIKE[c] 'i?em'", [], 3),
            ("name CONTAINS '[c]'", [], 1),
            ("name ENDSWITH '?[c]'", [], 1),
            ("name ==[cd] 'cafe'", [], 1),
            ("name ==[c] 'CAFÉ'", [], 1),
            ("name CONTAINS[c] 'TABLE'", [], 1),
            ("name MATCHES '[A-Z]+'", [], 1),
            ("name MATCHES[c] 'it.m'", [], 3),
            ("NOT (name BEGINSWITH 'I')", [], 8),
            ("count BETWEEN {2, 4}", [], 3),
            ("count IN {1, 11, 99}", [], 2),
            ("done == YES OR count < 2", [], 4),
            ("done == TRUE", [], 3),
            ("3 < count", [], 8),
            ("count > nil", [], 0),
            ("owner.name == 'Ann'", [], 2),
            ("owner.name != 'Ann'", [], 9),
            ("owner == nil", [], 8),
            ("owner == %@", [stack.ann!], 2),
            ("owner != %@", [stack.ann!], 9),
            ("SELF IN %@", [[items[0], items[4]]], 2),
            ("SELF == %@", [items[3].objectID], 1),
            ("SELF != %@", [stack.ann!], 11),
            ("owner == %@", [items[0]], 0),
            ("TRUEPREDICATE", [], 11),
            ("FALSEPREDICATE", [], 0),
            ("name == 'Item' OR NOT (count < 11 AND done == NO)", [], 5),
        ]
    }

    @Test func sqlSelectsWhatMemorySelects() throws {
        let stack = try Self.makeStack()
        try stack.context.performAndWait {
            let everything = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            #expect(everything.count == 11)
            for (format, arguments, expected) in Self.cases(stack) {
                let predicate = NSPredicate(format: format, argumentArray: arguments)
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = predicate
                let fetched = Set(try stack.context.fetch(request).map(\.objectID))
                let evaluated = Set(everything.filter { predicate.evaluate(with: $0) }.map(\.objectID))
                #expect(fetched == evaluated, "\(format): SQL \(fetched.count), memory \(evaluated.count)")
                #expect(evaluated.count == expected, "\(format)")
                #expect(try stack.context.count(for: request) == expected, "\(format)")
            }
            #expect(try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).count == 11)
        }
    }

    @Test func predicatesTheStoreCannotRunAreRefused() throws {
        let stack = try Self.makeStack()
        let refused: [(String, NSPredicate)] = [
            ("Item", NSPredicate { _, _ in true }),
            ("Owner", NSPredicate(format: "items.name == 'Item'")),
            ("Owner", NSPredicate(format: "ANY items.name == items.name")),
            ("Item", NSPredicate(format: "count > $limit")),
            ("Item", NSPredicate(format: "uppercase(name) == 'ITEM'")),
        ]
        stack.context.performAndWait {
            for (entity, predicate) in refused {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity)
                request.predicate = predicate
                do {
                    _ = try stack.context.fetch(request)
                    Issue.record("\(predicate) ran")
                } catch {
                    let error = error as NSError
                    #expect(error.code == NSPersistentStoreUnsupportedRequestTypeError, "\(predicate)")
                    #expect(error.localizedDescription.contains(PredicateFormatter.format(predicate)))
                }
            }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "nosuch == 1")
            do {
                _ = try stack.context.fetch(request)
                Issue.record("an unknown key was fetched on")
            } catch {
                let error = error as NSError
                #expect(error.userInfo["entity"] as? String == "Item")
                #expect(error.userInfo["key"] as? String == "nosuch")
                #expect(error.localizedDescription.contains("nosuch") && error.localizedDescription.contains("Item"))
            }
            // The store is untouched by what it refused or ran.
            #expect((try? stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item"))) == 11)
        }
    }

    @Test func inMemoryStoreFollowsRelationships() throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Stack.model())
        _ = try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Owner", into: context)
            ann.setValue("Ann", forKey: "name")
            for name in ["a", "b", "c"] {
                let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(name, forKey: "name")
                if name != "c" { item.setValue(ann, forKey: "owner") }
            }
            try context.save()
            for (format, expected) in [("owner.name == 'Ann'", 2), ("owner == %@", 2), ("owner == nil", 1)] {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.predicate = NSPredicate(format: format, argumentArray: [ann])
                #expect(try context.fetch(request).count == expected, "\(format)")
            }
            let owners = NSFetchRequest<NSManagedObject>(entityName: "Owner")
            owners.predicate = NSPredicate(format: "ANY items.name == 'b'")
            #expect(try context.fetch(owners).count == 1)
            // The same predicates on the managed objects themselves.
            #expect(NSPredicate(format: "ANY items.name == 'b'").evaluate(with: ann))
            #expect(!NSPredicate(format: "ALL items.name == 'b'").evaluate(with: ann))
            #expect(NSPredicate(format: "items.@count == 2").evaluate(with: ann))
            #expect(NSPredicate(format: "SELF == %@", ann.objectID).evaluate(with: ann))
        }
    }
}
