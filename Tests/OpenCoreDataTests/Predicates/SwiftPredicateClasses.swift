import Foundation

@testable import OpenCoreData

/// Classes written as Core Data users write them, for Swift `#Predicate`s over managed objects:
/// a to-many relationship as a `Set`, so that `contains(where:)` and `allSatisfy` read naturally.
final class PredicateBook: NSManagedObject {
    @NSManaged var title: String?
    @NSManaged var price: Double
    @NSManaged var pages: Int64
    @NSManaged var published: Date?
    @NSManaged var isAvailable: Bool
    @NSManaged var shelf: PredicateShelf?
}

final class PredicateShelf: NSManagedObject {
    @NSManaged var name: String?
    @NSManaged var books: Set<PredicateBook>
}

enum SwiftPredicateModel {
    static func make() -> NSManagedObjectModel {
        let book = TestModels.entity("PredicateBook", [
            TestModels.attribute("title", .stringAttributeType),
            TestModels.attribute("price", .doubleAttributeType, defaultValue: 0.0),
            TestModels.attribute("pages", .integer64AttributeType, defaultValue: 0),
            TestModels.attribute("published", .dateAttributeType),
            TestModels.attribute("isAvailable", .booleanAttributeType, defaultValue: false),
        ])
        book.managedObjectClassName = String(reflecting: PredicateBook.self)
        let shelf = TestModels.entity("PredicateShelf", [TestModels.attribute("name", .stringAttributeType)])
        shelf.managedObjectClassName = String(reflecting: PredicateShelf.self)
        TestModels.connect(shelf, many: "books", to: book, inverse: "shelf")
        let model = NSManagedObjectModel()
        model.entities = [book, shelf]
        return model
    }
}
