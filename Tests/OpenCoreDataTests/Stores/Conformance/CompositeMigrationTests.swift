import Foundation
import Testing

@testable import OpenCoreData

/// Lightweight migration of composite attributes in place, on every store that keeps its data:
/// a composite added to an entity, then an element added to the composite and one renamed away,
/// the values of the elements that stay kept.
@Suite struct CompositeMigrationTests {
    static let version1 = """
        <entity name="Place" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        """
    /// `address` added.
    static let version2 = """
        <entity name="Place" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>
        </entity>
        <composite name="Address">
            <attribute name="street" optional="YES" attributeType="String"/>
            <attribute name="city" optional="YES" attributeType="String"/>
        </composite>
        """
    /// Address gains `zip` and loses `street`.
    static let version3 = """
        <entity name="Place" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="address" optional="YES" attributeType="Composite" composite="Address"/>
        </entity>
        <composite name="Address">
            <attribute name="city" optional="YES" attributeType="String"/>
            <attribute name="zip" optional="YES" attributeType="String"/>
        </composite>
        """

    private func open(_ version: String, bundle: URL, url: URL, kind: ConformanceStore) throws -> NSManagedObjectContext {
        try MigrationConformanceTests.migratingContext(version, bundle: bundle, url: url, kind: kind)
    }

    private func addresses(_ context: NSManagedObjectContext) throws -> [String: [String: String]] {
        try context.performAndWait {
            var result: [String: [String: String]] = [:]
            for place in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place")) {
                result[place.value(forKey: "name") as? String ?? "?"] = place.value(forKey: "address") as? [String: String] ?? [:]
            }
            return result
        }
    }

    @Test(arguments: MigrationConformanceTests.stores)
    func compositesAddedAndChangedKeepTheirElementsValues(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let bundle = directory.file("Places.xcdatamodeld")
        for (name, entities) in [("1", Self.version1), ("2", Self.version2), ("3", Self.version3)] {
            try TableAlterationTests.version(name, in: bundle, entities)
        }
        let url = kind == .postgreSQL ? try PostgreSQLServer.required().storeURL() : directory.file("Places.store")
        let first = try open("1", bundle: bundle, url: url, kind: kind)
        try first.performAndWait {
            ConformanceStack.insert("Place", ["name": "Bouchon"], into: first)
            try first.save()
        }

        let second = try open("2", bundle: bundle, url: url, kind: kind)
        #expect(try addresses(second) == ["Bouchon": [:]])
        try second.performAndWait {
            let bouchon = try #require(try second.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place")).first)
            bouchon.setValue(["street": "Rue Mercière", "city": "Lyon"], forKey: "address")
            try second.save()
        }

        let third = try open("3", bundle: bundle, url: url, kind: kind)
        #expect(try addresses(third) == ["Bouchon": ["city": "Lyon"]])
        try third.performAndWait {
            let bouchon = try #require(try third.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place")).first)
            bouchon.setValue("69002", forKeyPath: "address.zip")
            try third.save()
        }
        #expect(try addresses(try open("3", bundle: bundle, url: url, kind: kind)) == ["Bouchon": ["city": "Lyon", "zip": "69002"]])
    }
}
