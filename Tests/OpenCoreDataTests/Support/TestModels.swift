@testable import OpenCoreData

/// Models built in code, as Core Data users build them without Xcode.
enum TestModels {
    static func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = true, defaultValue: Any? = nil) -> NSAttributeDescription {
        let attribute = NSAttributeDescription()
        attribute.name = name
        attribute.attributeType = type
        attribute.isOptional = optional
        attribute.defaultValue = defaultValue
        return attribute
    }

    static func relationship(
        _ name: String, to destination: NSEntityDescription, toMany: Bool, optional: Bool = true,
        deleteRule: NSDeleteRule = .nullifyDeleteRule
    ) -> NSRelationshipDescription {
        let relationship = NSRelationshipDescription()
        relationship.name = name
        relationship.destinationEntity = destination
        relationship.maxCount = toMany ? 0 : 1
        relationship.isOptional = optional
        relationship.deleteRule = deleteRule
        return relationship
    }

    /// Adds the to-many relationship `many` of `one`, to `each`, and its to-one inverse `inverse`.
    static func connect(_ one: NSEntityDescription, many: String, to each: NSEntityDescription, inverse: String) {
        let toMany = relationship(many, to: each, toMany: true)
        let toOne = relationship(inverse, to: one, toMany: false)
        toMany.inverseRelationship = toOne
        toOne.inverseRelationship = toMany
        one.properties += [toMany]
        each.properties += [toOne]
    }

    static func entity(_ name: String, _ properties: [NSPropertyDescription] = []) -> NSEntityDescription {
        let entity = NSEntityDescription()
        entity.name = name
        entity.managedObjectClassName = "NSManagedObject"
        entity.properties = properties
        return entity
    }

    /// The tutorials' to-do item: TSPItem(name: String, createdAt: Date, done: Boolean).
    static func todo() -> NSManagedObjectModel {
        let item = entity("TSPItem", [
            attribute("name", .stringAttributeType),
            attribute("createdAt", .dateAttributeType),
            attribute("done", .booleanAttributeType, defaultValue: false),
        ])
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }

    /// Authors and books: one-to-many with a cascade, books and tags many-to-many, a required
    /// title with a length limit, a unique ISBN, and a deny rule from Publisher to its books.
    static func library() -> NSManagedObjectModel {
        let author = entity("Author")
        let book = entity("Book")
        let tag = entity("Tag")
        let publisher = entity("Publisher")
        let title = attribute("title", .stringAttributeType, optional: false)
        title.rules.maximum = 40
        let pages = attribute("pages", .integer32AttributeType)
        pages.rules.minimum = 1
        pages.rules.maximum = 5000

        let books = relationship("books", to: book, toMany: true, deleteRule: .cascadeDeleteRule)
        let bookAuthor = relationship("author", to: author, toMany: false)
        books.inverseRelationship = bookAuthor
        bookAuthor.inverseRelationship = books

        let tags = relationship("tags", to: tag, toMany: true)
        let tagBooks = relationship("books", to: book, toMany: true)
        tags.inverseRelationship = tagBooks
        tagBooks.inverseRelationship = tags

        let published = relationship("books", to: book, toMany: true, deleteRule: .denyDeleteRule)
        let bookPublisher = relationship("publisher", to: publisher, toMany: false)
        published.inverseRelationship = bookPublisher
        bookPublisher.inverseRelationship = published

        author.properties = [attribute("name", .stringAttributeType), books]
        book.properties = [title, attribute("isbn", .stringAttributeType), pages, bookAuthor, tags, bookPublisher]
        book.uniquenessConstraints = [["isbn"]]
        tag.properties = [attribute("label", .stringAttributeType), tagBooks]
        publisher.properties = [attribute("name", .stringAttributeType), published]

        let model = NSManagedObjectModel()
        model.entities = [author, book, tag, publisher]
        return model
    }
}

/// A coordinator with one store of `type` in `directory`, and a private-queue context on it.
struct TestStack {
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore
    let context: NSManagedObjectContext
    let url: URL

    /// - Parameter url: The store's URL when it is not a file in `directory` (a PostgreSQL schema).
    init(
        model: NSManagedObjectModel, directory: TemporaryDirectory, type: NSPersistentStore.StoreType = .sqlite, name: String = "Test.sqlite",
        url: URL? = nil
    ) throws {
        self.url = url ?? directory.file(name)
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(type: type, at: self.url)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }

    /// A second, independent coordinator and context on the same file.
    func reopened() throws -> TestStack {
        try TestStack(reopening: url, model: coordinator.managedObjectModel)
    }

    private init(reopening url: URL, model: NSManagedObjectModel) throws {
        self.url = url
        coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
    }
}
