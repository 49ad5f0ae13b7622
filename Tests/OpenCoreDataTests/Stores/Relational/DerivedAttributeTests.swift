import Foundation
import Testing

@testable import OpenCoreData

/// Every form of derivation Core Data documents, from an Xcode model, kept up to date by the
/// store at save: in the saving context's objects at once, and in what other contexts read.
@Suite struct DerivedAttributeTests {
    static let entities = """
        <entity name="List" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="itemCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="items.@count" usesScalarValueType="YES"/>
            <attribute name="total" optional="YES" attributeType="Double" derived="YES" derivationExpression="items.@sum.price" usesScalarValueType="YES"/>
            <attribute name="highest" optional="YES" attributeType="Double" derived="YES" derivationExpression="items.@max.price" usesScalarValueType="YES"/>
            <attribute name="tagCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="tags.@count" usesScalarValueType="YES"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="list" inverseEntity="Item"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="lists" inverseEntity="Tag"/>
        </entity>
        <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="price" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            <attribute name="searchName" optional="YES" attributeType="String" derived="YES" derivationExpression="canonical:(name)"/>
            <attribute name="shout" optional="YES" attributeType="String" derived="YES" derivationExpression="uppercase:(name)"/>
            <attribute name="listTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="list.title"/>
            <attribute name="touched" optional="YES" attributeType="Date" derived="YES" derivationExpression="now()"/>
            <relationship name="list" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="List" inverseName="items" inverseEntity="List"/>
        </entity>
        <entity name="Tag" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="lists" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="List" inverseName="tags" inverseEntity="List"/>
        </entity>
        """

    static func model() throws -> NSManagedObjectModel {
        let folder = TemporaryDirectory()
        return try withExtendedLifetime(folder) {
            try NSManagedObjectModel(validatingContentsOf: ModelSource.write(ModelSource.model(entities), in: folder))
        }
    }

    static let stores: [ConformanceStore] = ConformanceStore.builtIn

    private func values(_ object: NSManagedObject, _ keys: [String]) -> [String] {
        keys.map { key in object.value(forKey: key).map { "\($0)" } ?? "nil" }
    }

    @Test func theLoaderReadsTheDerivationExpressions() throws {
        let model = try Self.model()
        let list = try #require(model.entitiesByName["List"]?.attributesByName["itemCount"] as? NSDerivedAttributeDescription)
        #expect(list.derivationExpression?.keyPath == "items.@count")
        let item = try #require(model.entitiesByName["Item"]?.attributesByName["searchName"] as? NSDerivedAttributeDescription)
        #expect(item.derivationExpression?.function == "canonical:")
    }

    @Test(arguments: stores)
    func everyFormIsComputedAtSave(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(try Self.model(), in: directory)
        let context = stack.context()
        let started = Date()
        try context.performAndWait {
            let list = ConformanceStack.insert("List", ["title": "Groceries"], into: context)
            let creme = ConformanceStack.insert("Item", ["name": "Crème", "price": 2.5, "list": list], into: context)
            let bread = ConformanceStack.insert("Item", ["name": "Bread", "price": 1.0, "list": list], into: context)
            let tags = ["a", "b"].map { ConformanceStack.insert("Tag", ["label": $0], into: context) }
            list.setValue(Set(tags), forKey: "tags")
            try context.save()
            #expect(values(list, ["itemCount", "total", "highest", "tagCount"]) == ["2", "3.5", "2.5", "2"])
            #expect(values(creme, ["searchName", "shout", "listTitle"]) == ["creme", "CRÈME", "Groceries"])
            let touched = try #require(creme.value(forKey: "touched") as? Date)
            #expect(touched >= started.addingTimeInterval(-1))
            #expect(!context.hasChanges)

            // The list's title reaches its items; the dearer item leaves it.
            list.setValue("Market", forKey: "title")
            creme.setValue(nil, forKey: "list")
            try context.save()
            #expect(values(bread, ["listTitle"]) == ["Market"])
            #expect(values(creme, ["listTitle"]) == ["nil"])
            #expect(values(list, ["itemCount", "total", "highest"]) == ["1", "1.0", "1.0"])

            bread.setValue("Rye", forKey: "name")
            try context.save()
            #expect(values(bread, ["searchName", "shout"]) == ["rye", "RYE"])
        }
        let reader = try stack.readerContext()
        let (names, count) = try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.predicate = NSPredicate(format: "listTitle == 'Market' AND searchName BEGINSWITH 'r'")
            let lists = NSFetchRequest<NSManagedObject>(entityName: "List")
            lists.predicate = NSPredicate(format: "itemCount == 1 AND tagCount == 2")
            return (try reader.fetch(request).map { $0.value(forKey: "name") as? String }, try reader.count(for: lists))
        }
        #expect(names == ["Rye"])
        #expect(count == 1)
    }

    /// A derivation Core Data can't keep is refused when the model is used, with the attribute named.
    @Test func anUnsupportedDerivationIsRefusedWhenTheModelIsUsed() throws {
        let entities = Self.entities.replacingOccurrences(of: "derivationExpression=\"items.@count\"", with: "derivationExpression=\"items.@avg.price\"")
        let folder = TemporaryDirectory()
        let model = try NSManagedObjectModel(validatingContentsOf: ModelSource.write(ModelSource.model(entities), in: folder))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let error = try #require(throws: NSError.self) {
            try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
        }
        #expect(error.code == NSCoreDataError)
        let description = error.localizedDescription
        #expect(description.contains("'List.itemCount'"), "\(description)")
    }

    /// A derived attribute added by a lightweight migration starts with the values of the rows
    /// already there, and stays up to date after.
    @Test(arguments: MigrationConformanceTests.stores)
    func aDerivedAttributeAddedByMigrationIsFilledIn(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let bundle = directory.file("Lists.xcdatamodeld")
        let withoutCount = Self.entities.replacingOccurrences(
            of: #"<attribute name="itemCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="items.@count" usesScalarValueType="YES"/>"#,
            with: "")
        try TableAlterationTests.version("1", in: bundle, withoutCount)
        try TableAlterationTests.version("2", in: bundle, Self.entities)
        let url = kind == .postgreSQL ? try PostgreSQLServer.required().storeURL() : directory.file("Lists.store")
        func open(_ version: String) throws -> NSManagedObjectContext {
            try MigrationConformanceTests.migratingContext(version, bundle: bundle, url: url, kind: kind)
        }
        let first = try open("1")
        try first.performAndWait {
            let list = ConformanceStack.insert("List", ["title": "Groceries"], into: first)
            for name in ["Milk", "Eggs", "Tea"] { ConformanceStack.insert("Item", ["name": name, "list": list], into: first) }
            try first.save()
        }
        let second = try open("2")
        try second.performAndWait {
            let list = try #require(try second.fetch(NSFetchRequest<NSManagedObject>(entityName: "List")).first)
            #expect((list.value(forKey: "itemCount") as? NSNumber)?.intValue == 3)
            ConformanceStack.insert("Item", ["name": "Jam", "list": list], into: second)
            try second.save()
            #expect((list.value(forKey: "itemCount") as? NSNumber)?.intValue == 4)
        }
    }
}
