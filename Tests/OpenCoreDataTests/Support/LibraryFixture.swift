@testable import OpenCoreData

/// A saved library (`TestModels.library()`) with every shape a predicate meets: authors with
/// several, one or no books, books without author or publisher, many-to-many tags, nil names,
/// titles and labels, accents, mixed case, and SQL-looking text.
///
/// Authors: Émile Zola (Germinal, L'Assommoir, Nana), ann (café society), ANN (none), nil (Ünïcödé),
/// Zoë (The Hobbit, the SQL-looking title). Publishers: Gallimard (Germinal, L'Assommoir,
/// café society), éditions du Seuil (The Hobbit), nil (Nana), Penguin (none). "orphan" has no
/// author and no publisher.
final class LibraryFixture {
    let directory = TemporaryDirectory()
    let stack: TestStack
    private(set) var objects: [String: NSManagedObject] = [:]

    var context: NSManagedObjectContext { stack.context }

    /// (title, isbn, pages, author, publisher, tags) of every book.
    static let books: [(String, String?, Int?, String?, String?, [String])] = [
        ("Germinal", "111", 592, "a1", "p1", ["t1", "t3"]),
        ("L'Assommoir", "222", 400, "a1", "p1", ["t1"]),
        ("Nana", nil, nil, "a1", "p3", []),
        ("café society", "444", 120, "a2", "p1", ["t2", "t5", "t4"]),
        ("Ünïcödé", "555", 1, "a4", nil, ["t5"]),
        ("The Hobbit", "666", 310, "a5", "p2", ["t1", "t2", "t3", "t5"]),
        ("100% ; DROP TABLE ZBOOK; --", "777", 5000, "a5", nil, ["t4"]),
        ("orphan", nil, 42, nil, nil, ["t3"]),
    ]

    /// - Parameters:
    ///   - type: The store's type.
    ///   - url: Its URL when it is not a file (a PostgreSQL schema).
    init(type: NSPersistentStore.StoreType = .sqlite, url: URL? = nil) throws {
        stack = try TestStack(model: TestModels.library(), directory: directory, type: type, url: url)
        try context.performAndWait {
            let authors: [(String, String?)] = [("a1", "Émile Zola"), ("a2", "ann"), ("a3", "ANN"), ("a4", nil), ("a5", "Zoë")]
            for (key, name) in authors { insert("Author", key, ["name": name]) }
            let publishers: [(String, String?)] = [("p1", "Gallimard"), ("p2", "éditions du Seuil"), ("p3", nil), ("p4", "Penguin")]
            for (key, name) in publishers { insert("Publisher", key, ["name": name]) }
            let tags: [(String, String?)] = [("t1", "classic"), ("t2", "Classic"), ("t3", "résumé"), ("t4", nil), ("t5", "sci-fi"), ("t6", "unused")]
            for (key, label) in tags { insert("Tag", key, ["label": label]) }
            for (index, (title, isbn, pages, author, publisher, tags)) in Self.books.enumerated() {
                let book = insert("Book", "b\(index + 1)", ["title": title, "isbn": isbn, "pages": pages])
                book.setValue(author.flatMap { objects[$0] }, forKey: "author")
                book.setValue(publisher.flatMap { objects[$0] }, forKey: "publisher")
                let set = book.mutableSetValue(forKey: "tags")
                for tag in tags { set.add(objects[tag]!) }
            }
            try context.save()
        }
    }

    @discardableResult
    private func insert(_ entity: String, _ key: String, _ values: [String: Any?]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (name, value) in values { object.setValue(value ?? nil, forKey: name) }
        objects[key] = object
        return object
    }

    /// Every fixture key.
    var keys: [String] { Array(objects.keys) }

    /// The fixture key of each object's ID, to name fetched objects in expectations.
    var keysByID: [NSManagedObjectID: String] { Dictionary(uniqueKeysWithValues: objects.map { ($0.value.objectID, $0.key) }) }

    /// The object inserted under `key` (`a1`, `b3`, `t5`, `p2`…).
    subscript(_ key: String) -> NSManagedObject { objects[key]! }

    /// Fetches `entity` with `predicate` through the store (SQL for a SQLite stack).
    func fetch(_ entity: String, _ predicate: NSPredicate?, sortedBy keys: [String] = []) throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = predicate
        request.sortDescriptors = keys.isEmpty ? nil : keys.map { NSSortDescriptor(key: $0, ascending: true) }
        return try context.fetch(request)
    }
}
