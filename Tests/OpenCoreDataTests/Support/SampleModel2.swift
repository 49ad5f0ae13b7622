import Foundation
@testable import OpenCoreData

/// The model of `SampleModel2/SampleModel2_V2.sqlite`, an Apple-written store with persistent
/// history, built in code as its README describes it (Apple built it in code too). Author's two
/// fetched properties are left out (they are not hashed). `pagesCount` is derived (`pages.@count`)
/// as in Apple's model, but how Apple hashes a derived attribute is not known
/// (docs/compatibility.md): Book's and GraphicNovel's hashes differ from the store's, and the
/// store opens with `NSIgnorePersistentStoreVersioningOption`.
enum SampleModel2 {
    static func model() -> NSManagedObjectModel {
        typealias M = TestModels
        let writer = M.entity("Writer", [M.attribute("age", .integer16AttributeType, optional: false)])
        writer.isAbstract = true
        let author = M.entity("Author", [M.attribute("alias", .stringAttributeType, optional: false)])
        author.uniquenessConstraints = [["alias"]]

        let book = M.entity("Book", [
            M.attribute("uniqueID", .UUIDAttributeType, optional: false),
            M.attribute("title", .stringAttributeType, optional: false),
            M.attribute("price", .decimalAttributeType, optional: false),
            M.attribute("frontCover", .transformableAttributeType, optional: false),
            M.attribute("publishedAt", .dateAttributeType, optional: false),
            pagesCount(),
        ])
        book.uniquenessConstraints = [["uniqueID"]]
        let graphicNovel = M.entity("GraphicNovel", [M.attribute("isBlackAndWhite", .booleanAttributeType, optional: false, defaultValue: false)])

        let page = M.entity("Page", [
            M.attribute("isBookmarked", .booleanAttributeType, optional: false, defaultValue: false),
            M.attribute("number", .integer32AttributeType, optional: false),
            M.attribute("content", .transformableAttributeType, optional: false),
        ])
        let feedback = M.entity("Feedback", [
            M.attribute("authorAlias", .stringAttributeType, optional: false),
            M.attribute("bookID", .UUIDAttributeType, optional: false),
            M.attribute("comment", .stringAttributeType),
            M.attribute("rating", .doubleAttributeType, optional: false),
        ])

        let books = M.relationship("books", to: book, toMany: true, deleteRule: .cascadeDeleteRule)
        // Apple's model says "no limit" with Int.max rather than 0, which its hash tells apart.
        books.maxCount = .max
        let bookAuthor = M.relationship("author", to: author, toMany: false, optional: false)
        bookAuthor.minCount = 1
        books.inverseRelationship = bookAuthor
        bookAuthor.inverseRelationship = books
        author.properties += [books]
        book.properties += [bookAuthor]

        let pages = M.relationship("pages", to: page, toMany: true, optional: false, deleteRule: .cascadeDeleteRule)
        pages.minCount = 1
        pages.maxCount = 10000
        let pageBook = M.relationship("book", to: book, toMany: false, optional: false)
        pageBook.minCount = 1
        pages.inverseRelationship = pageBook
        pageBook.inverseRelationship = pages
        book.properties += [pages]
        page.properties += [pageBook]

        // Subentities last: a subentity's `properties` then include its parent's.
        writer.subentities = [author]
        book.subentities = [graphicNovel]
        let model = NSManagedObjectModel()
        model.entities = [writer, author, book, graphicNovel, page, feedback]
        return model
    }

    /// Book's derived page count, as Apple's model declares it.
    private static func pagesCount() -> NSDerivedAttributeDescription {
        let attribute = NSDerivedAttributeDescription()
        attribute.name = "pagesCount"
        attribute.attributeType = .integer64AttributeType
        attribute.derivationExpression = NSExpression(format: "pages.@count")
        return attribute
    }
}
