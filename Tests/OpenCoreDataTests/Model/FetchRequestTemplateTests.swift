import Foundation
import Testing

@testable import OpenCoreData

/// Fetch request templates of an Xcode model: their predicate strings parse at load, and
/// `fetchRequestFromTemplate(withName:substitutionVariables:)` fills in the variables.
@Suite struct FetchRequestTemplateTests {
    static func xml(predicate: String) -> String {
        ModelSource.model(
            """
            <entity name="Book" representedClassName="Book" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="pages" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            </entity>
            <fetchRequest name="LongBooks" entity="Book" predicateString="\(predicate)" fetchLimit="2"/>
            <fetchRequest name="AllBooks" entity="Book"/>
            """)
    }

    static let predicate = "pages &gt; $minimum AND title BEGINSWITH[c] $prefix"

    @Test func templatesCarryTheirPredicateAndSubstituteVariables() throws {
        let folder = TemporaryDirectory()
        let model = try NSManagedObjectModel(validatingContentsOf: ModelSource.write(Self.xml(predicate: Self.predicate), in: folder))
        let template = try #require(model.fetchRequestTemplate(forName: "LongBooks"))
        #expect(template.predicate.map { "\($0)" } == "pages > $minimum AND title BEGINSWITH[c] $prefix")
        #expect(model.fetchRequestFromTemplate(withName: "Nope", substitutionVariables: [:]) == nil)

        let stack = try TestStack(model: model, directory: folder)
        try stack.context.performAndWait {
            for (title, pages) in [("A tale", 500), ("an essay", 90), ("Atlas", 800), ("Another", 301), ("Big", 900)] {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
                book.setValue(title, forKey: "title")
                book.setValue(pages, forKey: "pages")
            }
            try stack.context.save()
            let request = try #require(model.fetchRequestFromTemplate(withName: "LongBooks", substitutionVariables: ["minimum": 300, "prefix": "a"]))
            #expect(request.fetchLimit == 2)
            #expect(request.predicate.map { "\($0)" } == "pages > 300 AND title BEGINSWITH[c] \"a\"")
            request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: false)]
            let titles = try stack.context.fetch(request).map { ($0 as! NSManagedObject).value(forKey: "title") as! String }
            #expect(titles == ["Atlas", "A tale"])
            // The template is untouched, and an unsubstituted variable is refused by the store.
            #expect(template.sortDescriptors == nil && template.predicate.map { "\($0)" } == "pages > $minimum AND title BEGINSWITH[c] $prefix")
            let partial = try #require(model.fetchRequestFromTemplate(withName: "LongBooks", substitutionVariables: ["minimum": 1]))
            do {
                _ = try stack.context.fetch(partial)
                Issue.record("a predicate with a variable ran")
            } catch {
                #expect((error as NSError).code == NSPersistentStoreUnsupportedRequestTypeError)
            }
            let all = try #require(model.fetchRequestFromTemplate(withName: "AllBooks", substitutionVariables: [:]))
            #expect(all.predicate == nil)
            #expect(try stack.context.count(for: all) == 5)
        }
    }

    @Test func aPredicateStringThatDoesNotParseMakesTheModelInvalid() throws {
        let folder = TemporaryDirectory()
        let url = try ModelSource.write(Self.xml(predicate: "pages &gt;"), in: folder)
        do {
            _ = try NSManagedObjectModel(validatingContentsOf: url)
            Issue.record("the model loaded")
        } catch {
            let message = (error as NSError).localizedDescription
            #expect((error as NSError).code == NSFileReadCorruptFileError)
            #expect(message.contains("LongBooks") && message.contains("offset 7"), "\(message)")
        }
    }

    @Test func requestsCopyEveryOption() {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
        request.predicate = NSPredicate(format: "pages > 1")
        request.fetchBatchSize = 7
        request.relationshipKeyPathsForPrefetching = ["author"]
        request.resultType = .dictionaryResultType
        request.propertiesToGroupBy = ["title"]
        request.returnsDistinctResults = true
        let copy = request.copy() as! NSFetchRequest<NSManagedObject>
        #expect(copy !== request && copy.entityName == "Book" && copy.fetchBatchSize == 7)
        #expect(copy.predicate === request.predicate && copy.relationshipKeyPathsForPrefetching == ["author"])
        #expect(copy.resultType == .dictionaryResultType && copy.returnsDistinctResults && copy.propertiesToGroupBy?.count == 1)
    }
}
