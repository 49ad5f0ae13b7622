import Foundation
import Testing

@testable import OpenCoreData

/// Fetched properties as Core Data documents them: declared in the model, kept in
/// `propertiesByName`, fetched when first read with `$FETCH_SOURCE` and `$FETCHED_PROPERTY`, kept
/// until the object is refreshed, never stored and never a change.
@Suite struct FetchedPropertyTests {
    static let entities = """
        <entity name="Author" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            <fetchedProperty name="booksWithPrefix" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="author == $FETCH_SOURCE AND title BEGINSWITH $FETCHED_PROPERTY.userInfo.prefix"/>
                <userInfo>
                    <entry key="prefix" value="Du"/>
                </userInfo>
            </fetchedProperty>
        </entity>
        <entity name="Book" representedClassName="NSManagedObject" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        """

    static func model(_ entities: String = entities) throws -> NSManagedObjectModel {
        let folder = TemporaryDirectory()
        return try withExtendedLifetime(folder) {
            try NSManagedObjectModel(validatingContentsOf: ModelSource.write(ModelSource.model(entities), in: folder))
        }
    }

    @Test func theModelKeepsTheFetchedPropertyOutOfItsHash() throws {
        let model = try Self.model()
        let author = try #require(model.entitiesByName["Author"])
        let fetched = try #require(author.propertiesByName["booksWithPrefix"] as? NSFetchedPropertyDescription)
        #expect(fetched.fetchRequest?.entityName == "Book")
        #expect(fetched.fetchRequest?.predicate != nil)
        #expect(fetched.userInfo?["prefix"] as? String == "Du")
        #expect(author.attributesByName["booksWithPrefix"] == nil && author.relationshipsByName["booksWithPrefix"] == nil)
        let without = Self.entities.replacingOccurrences(
            of: #"(?s)<fetchedProperty.*</fetchedProperty>"#, with: "", options: .regularExpression)
        let plain = try Self.model(without)
        #expect(plain.entitiesByName["Author"]?.versionHash == author.versionHash)
    }

    @Test(arguments: ConformanceStore.builtIn)
    func theValueIsFetchedWhenReadAndKeptUntilRefreshed(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(try Self.model(), in: directory)
        let writer = stack.context()
        try writer.performAndWait {
            let frank = ConformanceStack.insert("Author", ["name": "Frank"], into: writer)
            let other = ConformanceStack.insert("Author", ["name": "Other"], into: writer)
            for title in ["Dune", "Dune Messiah", "Whipping Star"] { ConformanceStack.insert("Book", ["title": title, "author": frank], into: writer) }
            ConformanceStack.insert("Book", ["title": "Dunk", "author": other], into: writer)
            try writer.save()
        }
        let reader = try stack.readerContext()
        func titles(_ author: NSManagedObject) -> [String] {
            ((author.value(forKey: "booksWithPrefix") as? [NSManagedObject]) ?? []).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
        let frank = try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.predicate = NSPredicate(format: "name == 'Frank'")
            let frank = try #require(try reader.fetch(request).first)
            #expect(titles(frank) == ["Dune", "Dune Messiah"])
            #expect(!reader.hasChanges && frank.changedValues().isEmpty)
            return frank
        }
        try writer.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
            request.predicate = NSPredicate(format: "name == 'Frank'")
            let author = try #require(try writer.fetch(request).first)
            ConformanceStack.insert("Book", ["title": "Dune Encyclopedia", "author": author], into: writer)
            try writer.save()
        }
        reader.performAndWait {
            // Kept from the first read, as Core Data keeps it, until the object is refreshed.
            #expect(titles(frank) == ["Dune", "Dune Messiah"])
            reader.refresh(frank, mergeChanges: false)
            #expect(titles(frank) == ["Dune", "Dune Encyclopedia", "Dune Messiah"])
        }
    }
}
