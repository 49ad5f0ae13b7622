import GRDB
import Testing
@testable import OpenCoreData

/// Dictionary results (`propertiesToFetch` with attribute names and expression descriptions,
/// `propertiesToGroupBy`, `havingPredicate`, `returnsDistinctResults`) equal the same query
/// written by hand and run with GRDB on the same file.
@Suite struct DictionaryResultTests {
    /// An expression description of `function` over `keyPath`.
    static func expression(_ name: String, _ function: String, _ keyPath: String, _ type: NSAttributeType) -> NSExpressionDescription {
        let description = NSExpressionDescription()
        description.name = name
        description.expression = NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)])
        description.expressionResultType = type
        return description
    }

    /// The rows of `sql` run by hand on the store's file.
    private func byHand(_ sql: String, _ library: LibraryFixture) throws -> [Row] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: library.stack.url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try Row.fetchAll(db, sql: sql) }
    }

    /// Whether a result dictionary holds exactly the row's values under the row's column names
    /// (a NULL column being an absent key, as Core Data leaves nil values out).
    private func same(_ dictionary: NSDictionary, _ row: Row) -> Bool {
        var keys = 0
        for column in row.columnNames {
            let theirs: DatabaseValue = row[column]
            let ours = dictionary[column]
            switch theirs.storage {
            case .null:
                if ours != nil { return false }
                continue
            case .int64(let value):
                keys += 1
                if let id = ours as? NSManagedObjectID {
                    if id.primaryKey != value { return false }
                } else if !ValueComparison.isEqual(ours, value) {
                    return false
                }
            case .double(let value):
                keys += 1
                guard let number = ours.flatMap(ValueComparison.normalize).flatMap(ValueComparison.doubleValue), abs(number - value) < 1e-9 else {
                    return false
                }
            case .string(let value):
                keys += 1
                if ours as? String != value { return false }
            case .blob(let value):
                keys += 1
                if ours as? Data != value { return false }
            }
        }
        return keys == dictionary.count
    }

    private func expectSame(_ dictionaries: [NSDictionary], _ rows: [Row], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(dictionaries.count == rows.count, sourceLocation: sourceLocation)
        for (dictionary, row) in zip(dictionaries, rows) {
            #expect(same(dictionary, row), "\(dictionary) vs \(row)", sourceLocation: sourceLocation)
        }
    }

    @Test func groupedAggregatesWithHaving() throws {
        let library = try LibraryFixture()
        try library.context.performAndWait {
            let request = NSFetchRequest<NSDictionary>(entityName: "Book")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [
                "publisher.name", Self.expression("total", "sum:", "pages", .integer64AttributeType),
                Self.expression("titles", "count:", "title", .integer64AttributeType), Self.expression("shortest", "min:", "pages", .integer32AttributeType),
                Self.expression("longest", "max:", "pages", .undefinedAttributeType), Self.expression("mean", "average:", "pages", .doubleAttributeType),
            ]
            request.propertiesToGroupBy = ["publisher.name"]
            request.havingPredicate = NSPredicate(format: "total > 100")
            request.sortDescriptors = [NSSortDescriptor(key: "publisher.name", ascending: true)]
            let dictionaries = try library.context.fetch(request)
            let rows = try byHand(
                """
                SELECT p.ZNAME AS "publisher.name", SUM(b.ZPAGES) AS total, COUNT(b.ZTITLE) AS titles, MIN(b.ZPAGES) AS shortest,
                       MAX(b.ZPAGES) AS longest, AVG(b.ZPAGES) AS mean
                FROM ZBOOK b LEFT JOIN ZPUBLISHER p ON p.Z_PK = b.ZPUBLISHER
                GROUP BY p.ZNAME HAVING SUM(b.ZPAGES) > 100 ORDER BY p.ZNAME
                """, library)
            expectSame(dictionaries, rows)
            #expect(rows.count == 3)
            // Values come as Core Data hands them out: the declared types.
            let gallimard = dictionaries.first { $0["publisher.name"] as? String == "Gallimard" }
            #expect(gallimard?["total"] as? Int == 1112)
            #expect(gallimard?["shortest"] as? Int32 == 120)
            #expect((gallimard?["mean"] as? Double).map { abs($0 - 1112.0 / 3) < 1e-9 } == true)
        }
    }

    @Test func groupedByARelationshipWithAnAggregateInHaving() throws {
        let library = try LibraryFixture()
        try library.context.performAndWait {
            let entity = library.context.persistentStoreCoordinator!.managedObjectModel.entitiesByName["Book"]!
            let request = NSFetchRequest<NSDictionary>(entityName: "Book")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = [entity.relationshipsByName["author"]!, Self.expression("books", "count:", "title", .integer64AttributeType)]
            request.propertiesToGroupBy = [entity.relationshipsByName["author"]!]
            request.havingPredicate = NSPredicate(format: "count(title) > 1 OR $books == 1")
            request.sortDescriptors = [NSSortDescriptor(key: "author", ascending: true)]
            let dictionaries = try library.context.fetch(request)
            let rows = try byHand(
                """
                SELECT ZAUTHOR AS author, COUNT(ZTITLE) AS books FROM ZBOOK GROUP BY ZAUTHOR
                HAVING COUNT(ZTITLE) > 1 OR COUNT(ZTITLE) = 1 ORDER BY ZAUTHOR
                """, library)
            expectSame(dictionaries, rows)
            #expect(dictionaries.compactMap { $0["author"] as? NSManagedObjectID }.contains(library["a1"].objectID))
        }
    }

    @Test func distinctValuesWithAPredicate() throws {
        let library = try LibraryFixture()
        try library.context.performAndWait {
            for label in ["classic", "sci-fi", "classic"] {
                NSEntityDescription.insertNewObject(forEntityName: "Tag", into: library.context).setValue(label, forKey: "label")
            }
            try library.context.save()
            let request = NSFetchRequest<NSDictionary>(entityName: "Tag")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["label"]
            request.returnsDistinctResults = true
            request.predicate = NSPredicate(format: "label != 'unused' AND ANY books.pages > 0")
            request.sortDescriptors = [NSSortDescriptor(key: "label", ascending: true)]
            let dictionaries = try library.context.fetch(request)
            let rows = try byHand(
                """
                SELECT DISTINCT t.ZLABEL AS label FROM ZTAG t
                WHERE t.ZLABEL IS NOT 'unused' AND EXISTS (SELECT 1 FROM Z_2TAGS j JOIN ZBOOK b ON b.Z_PK = j.Z_2BOOKS
                                                           WHERE j.Z_4TAGS = t.Z_PK AND b.ZPAGES > 0)
                ORDER BY t.ZLABEL
                """, library)
            expectSame(dictionaries, rows)
            #expect(dictionaries.count == 5)
        }
    }

    @Test func wholeTableAggregatesAndPlainRows() throws {
        let library = try LibraryFixture()
        try library.context.performAndWait {
            let totals = NSFetchRequest<NSDictionary>(entityName: "Book")
            totals.resultType = .dictionaryResultType
            totals.predicate = NSPredicate(format: "pages > 100")
            totals.propertiesToFetch = [Self.expression("total", "sum:", "pages", .integer64AttributeType), Self.expression("last", "max:", "title", .stringAttributeType)]
            expectSame(
                try library.context.fetch(totals),
                try byHand("SELECT SUM(ZPAGES) AS total, MAX(ZTITLE) AS last FROM ZBOOK WHERE ZPAGES > 100", library))

            let plain = NSFetchRequest<NSDictionary>(entityName: "Book")
            plain.resultType = .dictionaryResultType
            let objectID = NSExpressionDescription()
            objectID.name = "objectID"
            objectID.expression = .expressionForEvaluatedObject()
            objectID.expressionResultType = .objectIDAttributeType
            plain.propertiesToFetch = [objectID, "title", "pages", "author", "author.name"]
            plain.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            plain.fetchLimit = 4
            plain.fetchOffset = 1
            let dictionaries = try library.context.fetch(plain)
            expectSame(
                dictionaries,
                try byHand(
                    """
                    SELECT b.Z_PK AS objectID, b.ZTITLE AS title, b.ZPAGES AS pages, b.ZAUTHOR AS author, a.ZNAME AS "author.name"
                    FROM ZBOOK b LEFT JOIN ZAUTHOR a ON a.Z_PK = b.ZAUTHOR ORDER BY b.ZTITLE, b.Z_PK LIMIT 4 OFFSET 1
                    """, library))
            let first = try #require(dictionaries.first?["objectID"] as? NSManagedObjectID)
            #expect(try library.context.existingObject(with: first).value(forKey: "title") as? String == dictionaries.first?["title"] as? String)
        }
    }

    /// Dictionary requests over the library, for the cross-store test.
    private func requests(_ model: NSManagedObjectModel) -> [NSFetchRequest<NSDictionary>] {
        func request(_ entity: String, _ properties: [Any], groupBy: [Any]? = nil, having: String? = nil, predicate: String? = nil,
                     sort: [String] = [], distinct: Bool = false, limit: Int = 0, offset: Int = 0) -> NSFetchRequest<NSDictionary> {
            let request = NSFetchRequest<NSDictionary>(entityName: entity)
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = properties
            request.propertiesToGroupBy = groupBy
            request.havingPredicate = having.map { NSPredicate(format: $0) }
            request.predicate = predicate.map { NSPredicate(format: $0) }
            request.sortDescriptors = sort.isEmpty ? nil : sort.map { NSSortDescriptor(key: $0, ascending: true) }
            request.returnsDistinctResults = distinct
            request.fetchLimit = limit
            request.fetchOffset = offset
            return request
        }
        let author = model.entitiesByName["Book"]!.relationshipsByName["author"]!
        let objectID = NSExpressionDescription()
        objectID.name = "objectID"
        objectID.expression = .expressionForEvaluatedObject()
        objectID.expressionResultType = .objectIDAttributeType
        return [
            request(
                "Book",
                ["publisher.name", Self.expression("total", "sum:", "pages", .integer64AttributeType), Self.expression("titles", "count:", "title", .integer64AttributeType),
                 Self.expression("shortest", "min:", "pages", .undefinedAttributeType), Self.expression("mean", "average:", "pages", .doubleAttributeType)],
                groupBy: ["publisher.name"], having: "total > 100", sort: ["publisher.name"]),
            request("Book", [author, Self.expression("books", "count:", "title", .integer64AttributeType)], groupBy: [author], having: "books > 1 OR $books == 1", sort: ["author"]),
            request("Tag", ["label"], predicate: "ANY books.pages > 0", sort: ["label"], distinct: true),
            request("Book", [Self.expression("total", "sum:", "pages", .integer64AttributeType), Self.expression("last", "max:", "title", .stringAttributeType)], predicate: "pages > 100"),
            request("Book", [Self.expression("count", "count:", "pages", .undefinedAttributeType), Self.expression("total", "sum:", "pages", .undefinedAttributeType)], predicate: "FALSEPREDICATE"),
            request("Book", [objectID, "title", "pages", "author", "author.name"], sort: ["title"], limit: 4, offset: 1),
            request("Author", [Self.expression("books", "count:", "books", .integer64AttributeType), "name"], sort: ["name"]),
        ]
    }

    /// Two result values are the same: numbers by value, object IDs by entity and key (the two
    /// stores give the same keys to the same insertions).
    private func sameValue(_ a: Any?, _ b: Any?) -> Bool {
        if let x = a as? NSManagedObjectID, let y = b as? NSManagedObjectID { return x.entity === y.entity && x.primaryKey == y.primaryKey }
        if let x = ValueComparison.normalize(a) as? Double, let y = ValueComparison.normalize(b).flatMap(ValueComparison.doubleValue) { return abs(x - y) < 1e-9 }
        return ValueComparison.isEqual(a, b)
    }

    @Test func theInMemoryStoreComputesTheSameDictionaries() throws {
        let sqlite = try LibraryFixture()
        let memory = try LibraryFixture(type: .inMemory)
        let model = sqlite.context.persistentStoreCoordinator!.managedObjectModel
        for (index, request) in requests(model).enumerated() {
            let expected = try sqlite.context.performAndWait { try sqlite.context.fetch(request) }
            let computed = try memory.context.performAndWait {
                // The in-memory stack has its own model objects.
                let copy = request.copy() as! NSFetchRequest<NSDictionary>
                if let properties = request.propertiesToFetch {
                    copy.propertiesToFetch = properties.map { ($0 as? NSRelationshipDescription).map { $0.name } ?? $0 }
                }
                copy.propertiesToGroupBy = request.propertiesToGroupBy?.map { ($0 as? NSRelationshipDescription).map { $0.name } ?? $0 }
                return try memory.context.fetch(copy)
            }
            #expect(expected.count == computed.count, "request \(index): \(expected) vs \(computed)")
            for (a, b) in zip(expected, computed) {
                let same = a.count == b.count && a.allSatisfy { key, value in sameValue(value, b[key]) || (key as? String == "author" || key as? String == "objectID") && sameKey(value, b[key]) }
                #expect(same, "request \(index): \(a) vs \(b)")
            }
        }
    }

    /// Object IDs of two stacks: same entity name and key.
    private func sameKey(_ a: Any?, _ b: Any?) -> Bool {
        guard let x = a as? NSManagedObjectID, let y = b as? NSManagedObjectID else { return false }
        return x.entity.name == y.entity.name && x.primaryKey == y.primaryKey
    }

    @Test func badDictionaryRequestsAreRefused() throws {
        let library = try LibraryFixture()
        library.context.performAndWait {
            let ungrouped = NSFetchRequest<NSDictionary>(entityName: "Book")
            ungrouped.resultType = .dictionaryResultType
            ungrouped.propertiesToFetch = ["title", "pages"]
            ungrouped.propertiesToGroupBy = ["title"]
            #expect(throws: (any Error).self) { try library.context.fetch(ungrouped) }
            let having = NSFetchRequest<NSDictionary>(entityName: "Book")
            having.resultType = .dictionaryResultType
            having.havingPredicate = NSPredicate(format: "pages > 1")
            #expect(throws: (any Error).self) { try library.context.fetch(having) }
            let unknown = NSFetchRequest<NSDictionary>(entityName: "Book")
            unknown.resultType = .dictionaryResultType
            unknown.propertiesToFetch = ["title; DROP TABLE ZBOOK"]
            #expect(throws: (any Error).self) { try library.context.fetch(unknown) }
        }
    }
}
