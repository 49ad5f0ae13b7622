import Foundation
import Testing

@testable import OpenCoreData

/// The model limits issue 20's fuzzing found: each trapped, overflowed the stack or ran for
/// minutes. A model within the limits loads and works; one beyond them is refused with an error
/// that names the entity, whether it comes from a file or is built in code.
@Suite struct ModelLimitTests {
    /// `<entity>` elements for a chain of `count` entities, each the parent of the next, with one
    /// attribute each.
    static func chain(_ count: Int) -> String {
        (0..<count).map { i in
            let parent = i > 0 ? " parentEntity=\"E\(i - 1)\"" : ""
            return "<entity name=\"E\(i)\"\(parent)><attribute name=\"a\(i)\" optional=\"YES\" attributeType=\"Integer 64\"/></entity>"
        }.joined()
    }

    func load(_ xml: String) throws -> NSManagedObjectModel {
        let folder = TemporaryDirectory()
        return try withExtendedLifetime(folder) {
            try NSManagedObjectModel(validatingContentsOf: try ModelSource.write(xml, in: folder))
        }
    }

    /// Inserts one object of every entity into an in-memory store, saves, and counts them back.
    func insertOneOfEach(_ model: NSManagedObjectModel) throws -> Int {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            for entity in model.entities { _ = NSManagedObject(entity: entity, insertInto: context) }
            try context.save()
            context.reset()
            return try context.count(for: NSFetchRequest<NSManagedObject>(entityName: model.entities[0].name!))
        }
    }

    @Test func aHierarchyAtTheDepthLimitLoadsAndWorks() throws {
        let depth = ModelLimits.maximumHierarchyDepth
        let model = try load(ModelSource.model(Self.chain(depth + 1)))
        let leaf = try #require(model.entitiesByName["E\(depth)"])
        #expect(leaf.properties.count == depth + 1)
        // The root's count includes every entity below it.
        #expect(try insertOneOfEach(model) == depth + 1)
    }

    @Test func aDeeperHierarchyIsRefusedNamingTheEntity() throws {
        let depth = ModelLimits.maximumHierarchyDepth
        let error = try #require(throws: NSError.self) { try load(ModelSource.model(Self.chain(depth + 2))) }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("entity 'E\(depth + 1)'"), "\(error.localizedDescription)")
        #expect(error.localizedDescription.contains("\(depth) levels"), "\(error.localizedDescription)")
    }

    /// Three thousand subentities of one root loaded in 260 s: each was appended to the parent's
    /// list, and the list's observer searched the whole list for every old member.
    @Test func thousandsOfSubentitiesLoadAndWork() throws {
        let children = (1...3_000).map { "<entity name=\"S\($0)\" parentEntity=\"Root\"/>" }.joined()
        let model = try load(ModelSource.model("<entity name=\"Root\"/>" + children))
        #expect(model.entitiesByName["Root"]?.subentities.count == 3_000)
        #expect(try insertOneOfEach(model) == 3_001)
    }

    @Test func moreAttributesThanAnObjectHoldsAreRefusedWhenLoading() throws {
        let count = ModelLimits.maximumProperties + 1
        let attributes = (0..<count).map { "<attribute name=\"a\($0)\" optional=\"YES\" attributeType=\"Integer 16\"/>" }
        let error = try #require(throws: NSError.self) {
            try load(ModelSource.model("<entity name=\"Wide\">" + attributes.joined() + "</entity>"))
        }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("entity 'Wide' has \(count) properties"), "\(error.localizedDescription)")
    }

    @Test func aModelBuiltInCodeBeyondTheLimitsIsRefusedByTheCoordinator() throws {
        let wide = TestModels.entity(
            "Wide", (0...ModelLimits.maximumProperties).map { TestModels.attribute("a\($0)", .integer16AttributeType) })
        let first = TestModels.entity("First")
        let second = TestModels.entity("Second")
        // A cycle: each is the other's subentity.
        first.subentities = [second]
        second.subentities = [first]
        for (entities, mention) in [([wide], "entity 'Wide' has"), ([first, second], "levels below its root")] {
            let model = NSManagedObjectModel()
            model.entities = entities
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let error = try #require(throws: NSError.self) {
                try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
            }
            #expect(error.code == NSCoreDataError)
            #expect(error.localizedDescription.contains(mention), "\(error.localizedDescription)")
        }
    }

    /// A hundred thousand nested elements overflowed the stack when their tree was freed.
    @Test func deeplyNestedXMLIsRefused() throws {
        let depth = 100_000
        let nested = String(repeating: "<entity name=\"A\">", count: depth) + String(repeating: "</entity>", count: depth)
        let error = try #require(throws: NSError.self) { try load(ModelSource.model(nested)) }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains("nested more than \(ModelXMLReader.maximumDepth) deep"), "\(error.localizedDescription)")
    }

    /// Defaults at the 64-bit limits are stored and read back, in a file and in memory.
    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func defaultsAtTheLimitsRoundTrip(_ type: NSPersistentStore.StoreType) throws {
        let model = try load(ModelSource.model("""
            <entity name="Limits">\
            <attribute name="f" optional="YES" attributeType="Float" defaultValueString="9223372036854775807"/>\
            <attribute name="i" optional="YES" attributeType="Integer 64" defaultValueString="-9223372036854775808"/>\
            <attribute name="d" optional="YES" attributeType="Double" defaultValueString="1.7976931348623157e308"/>\
            </entity>
            """))
        let folder = TemporaryDirectory()
        try withExtendedLifetime(folder) {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(type: type, at: folder.file("Limits.sqlite"))
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                _ = NSEntityDescription.insertNewObject(forEntityName: "Limits", into: context)
                try context.save()
                context.reset()
                let object = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Limits")).first)
                #expect((object.value(forKey: "f") as? NSNumber)?.floatValue == Float(9_223_372_036_854_775_807))
                #expect((object.value(forKey: "i") as? NSNumber)?.int64Value == Int64.min)
                #expect((object.value(forKey: "d") as? NSNumber)?.doubleValue == Double.greatestFiniteMagnitude)
            }
        }
    }
}
