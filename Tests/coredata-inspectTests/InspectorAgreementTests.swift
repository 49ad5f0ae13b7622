import Foundation
import GRDB
import OpenCoreData
import Testing

/// What `coredata-inspect` prints of a store, without its model, is what a fetch through the
/// store's real model returns: the entities and their counts, every object with its attribute
/// values and related objects. The store is left byte for byte as it was, with no file beside it.
@Suite struct InspectorAgreementTests {
    @Test(arguments: InspectedCase.all)
    func entitiesAndDumpAgreeWithTheRealModel(_ inspected: InspectedCase) throws {
        let sandbox = try InspectorSandbox()
        let (store, model) = try inspected.make(sandbox)
        let before = try sandbox.snapshot(of: store)

        let entities = try #require(try Self.succeed(sandbox.run("entities", store.path, "--json")).json() as? [[String: Any]])
        #expect(Set(entities.compactMap { $0["name"] as? String }) == Set(model.entities.compactMap(\.name)))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        // A copy, opened through the real model, so that the store itself stays untouched.
        let reference = try sandbox.referenceCopy(of: store)
        try coordinator.addPersistentStore(
            type: .sqlite, at: reference, options: [NSPersistentHistoryTrackingKey: true, NSIgnorePersistentStoreVersioningOption: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let storeUUID = try #require(coordinator.persistentStores.first?.identifier)

        for described in entities {
            let name = try #require(described["name"] as? String)
            let entity = try #require(model.entitiesByName[name])
            let count = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: name)) }
            #expect(described["count"] as? Int == count, "\(name)")
            let attributes = Set((described["attributes"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            #expect(attributes == Set(entity.attributesByName.keys), "\(name)")
            for relationship in described["relationships"] as? [[String: Any]] ?? [] {
                let real = try #require(entity.relationshipsByName[relationship["name"] as? String ?? ""], "\(name)")
                #expect(relationship["destination"] as? String == real.destinationEntity?.name)
                #expect(relationship["inverse"] as? String == real.inverseRelationship?.name)
                #expect(relationship["toMany"] as? Bool == real.isToMany)
            }

            let dumped = try #require(try Self.succeed(sandbox.run("dump", store.path, name, "--json")).json() as? [[String: Any]])
            var rows: [String: [String: Any]] = [:]
            for row in dumped { rows[row["objectID"] as? String ?? ""] = row }
            let mismatches: [String] = try context.performAndWait {
                var mismatches: [String] = []
                let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: name))
                if objects.count != dumped.count { mismatches.append("\(dumped.count) rows for \(objects.count) objects") }
                for object in objects {
                    let uri = object.objectID.uriRepresentation().absoluteString
                    #expect(uri.contains(storeUUID))
                    guard let row = rows[uri] else {
                        mismatches.append("\(uri) missing")
                        continue
                    }
                    for (key, property) in object.entity.propertiesByName where !property.isTransient {
                        if let attribute = property as? NSAttributeDescription {
                            // A transformable's value is the app's class; the inspector prints its bytes.
                            if attribute.attributeType == .transformableAttributeType { continue }
                            if !Self.agree(object.value(forKey: key), row[key]) {
                                mismatches.append("\(uri) \(key): \(String(describing: object.value(forKey: key))) vs \(String(describing: row[key]))")
                            }
                        } else if let relationship = property as? NSRelationshipDescription {
                            let related = Self.uris(object.value(forKey: key))
                            let printed: [String] = relationship.isToMany ? (row[key] as? [String] ?? []) : (row[key] as? String).map { [$0] } ?? []
                            if (relationship.isOrdered ? related : related.sorted()) != (relationship.isOrdered ? printed : printed.sorted()) {
                                mismatches.append("\(uri) \(key): \(related) vs \(printed)")
                            }
                        }
                    }
                }
                return mismatches
            }
            #expect(mismatches.isEmpty, "\(name): \(mismatches.prefix(5))")
        }
        #expect(try sandbox.snapshot(of: store) == before, "the store or its folder changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.scratch.path).isEmpty, "a copy was left behind")
    }

    /// A predicate selects in `dump` as in a fetch; CSV has a header and one line per object.
    @Test func whereAndCSVSelectAsAFetchDoes() throws {
        let sandbox = try InspectorSandbox()
        let (store, _) = try InspectedCase.written.make(sandbox)
        let selected = try #require(
            try Self.succeed(sandbox.run("dump", store.path, "Person", "--where", "score > 0.5 AND address.city BEGINSWITH 'City'", "--json")).json()
                as? [[String: Any]])
        #expect(selected.compactMap { $0["name"] as? String }.sorted() == ["Person 2", "Person 4"])
        #expect(selected.first { $0["name"] as? String == "Person 4" }?["entity"] as? String == "Employee")
        let csv = try Self.succeed(sandbox.run("dump", store.path, "Tag", "--csv")).stdout.split(separator: "\n")
        #expect(csv.first == "objectID,entity,label,people")
        #expect(csv.count == 4)
        #expect(csv.contains { $0.contains(#","blue, ""quoted""","#) })
        let bad = try sandbox.run("dump", store.path, "Person", "--where", "name ==")
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("Error: The predicate name == does not parse"))
        let unknown = try sandbox.run("dump", store.path, "Nobody")
        #expect(unknown.status == 1 && unknown.stderr == "Error: The store has no entity named Nobody (it has Employee, Person, Pet, Tag).\n")
    }

    /// `history` prints the store's transactions; `--after` a token leaves out that one and
    /// those before it.
    @Test func historyListsTransactionsAfterAToken() throws {
        let sandbox = try InspectorSandbox()
        let (store, model) = try InspectedCase.written.make(sandbox)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let added = try coordinator.addPersistentStore(type: .sqlite, at: store, options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "import"
        try context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("yellow", forKey: "label")
            try context.save()
        }
        try coordinator.remove(added)
        let all = try #require(try Self.succeed(sandbox.run("history", store.path, "--json")).json() as? [[String: Any]])
        #expect(all.count == 2)
        let first = try #require(all.first?["token"] as? Int)
        #expect((all.first?["changes"] as? [Any])?.count == 18)
        let later = try #require(try Self.succeed(sandbox.run("history", store.path, "--after", "\(first)", "--json")).json() as? [[String: Any]])
        #expect(later.count == 1)
        #expect(later.first?["author"] as? String == "import")
        let change = (later.first?["changes"] as? [[String: Any]])?.first
        #expect(change?["type"] as? String == "insert")
        #expect((change?["objectID"] as? String)?.contains("/Tag/p4") == true)
        let text = try Self.succeed(sandbox.run("history", store.path, "--after", "\(first)")).stdout
        #expect(text.contains("author=import") && text.hasSuffix("1 transactions\n"))
    }

    /// `metadata` prints the store's version hashes as Base64 and its UUID.
    @Test func metadataIsTheStores() throws {
        let sandbox = try InspectorSandbox()
        let store = try sandbox.copyOfFixture("SampleModel/Fixtures/SampleModel_V1.sqlite")
        let expected = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: store)
        let printed = try #require(try Self.succeed(sandbox.run("metadata", store.path, "--json")).json() as? [String: Any])
        #expect(printed[NSStoreUUIDKey] as? String == expected[NSStoreUUIDKey] as? String)
        let hashes = try #require(expected[NSStoreModelVersionHashesKey] as? [String: Data])
        #expect(printed[NSStoreModelVersionHashesKey] as? [String: String] == hashes.mapValues { $0.base64EncodedString() })
        #expect(try Self.succeed(sandbox.run("metadata", store.path)).stdout.contains("NSStoreType: SQLite\n"))
    }

    /// A link to a store reads the store it leads to; neither changes.
    @Test func aLinkToAStoreReadsTheStore() throws {
        let sandbox = try InspectorSandbox()
        let store = try sandbox.copyOfFixture("SampleModel/Fixtures/SampleModel_V1.sqlite")
        let link = sandbox.file("Link.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: store)
        let before = try sandbox.snapshot(of: store)
        let result = Self.succeed(try sandbox.run("entities", link.path))
        #expect(result.stdout.contains("Car: "))
        #expect(try sandbox.snapshot(of: store) == before)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == store.path)
    }

    /// A store another process has open reads with what its write-ahead log holds, and its
    /// files (the log and its index included) stay as they are.
    @Test func aStoreInUseReadsWithItsLog() throws {
        let sandbox = try InspectorSandbox()
        let (store, model) = try InspectedCase.written.make(sandbox)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: store, options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("in the log", forKey: "label")
            try context.save()
        }
        #expect(FileManager.default.fileExists(atPath: store.path + "-wal"))
        let before = try sandbox.snapshot(of: store)
        let tags = try #require(try Self.succeed(sandbox.run("dump", store.path, "Tag", "--json")).json() as? [[String: Any]])
        #expect(tags.contains { $0["label"] as? String == "in the log" })
        #expect(try sandbox.snapshot(of: store) == before)
    }

    // MARK: Helpers

    /// A run that must succeed: status 0 and nothing on standard error.
    static func succeed(_ result: InspectorResult, sourceLocation: SourceLocation = #_sourceLocation) -> InspectorResult {
        #expect(result.status == 0, "status \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty, sourceLocation: sourceLocation)
        return result
    }

    static func uris(_ value: Any?) -> [String] {
        switch value {
        case let object as NSManagedObject: return [object.objectID.uriRepresentation().absoluteString]
        case let ordered as NSOrderedSet: return ordered.array.compactMap { ($0 as? NSManagedObject)?.objectID.uriRepresentation().absoluteString }
        case let set as Set<NSManagedObject>: return set.map { $0.objectID.uriRepresentation().absoluteString }
        case let set as NSSet: return set.allObjects.compactMap { ($0 as? NSManagedObject)?.objectID.uriRepresentation().absoluteString }
        default: return []
        }
    }

    /// Whether a value read through the real model and the inspector's JSON for it agree.
    static func agree(_ real: Any?, _ printed: Any?) -> Bool {
        switch real {
        case nil, is NSNull: return printed == nil || printed is NSNull
        case let text as String: return printed as? String == text
        case let decimal as NSDecimalNumber: return (printed as? String).flatMap { Decimal(string: $0) } == decimal.decimalValue
        case let decimal as Decimal: return (printed as? String).flatMap { Decimal(string: $0) } == decimal
        case let date as Date:
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let text = printed as? String, let parsed = formatter.date(from: text) else { return false }
            return abs(parsed.timeIntervalSince(date)) < 0.001
        case let data as Data: return printed as? String == data.base64EncodedString()
        case let uuid as UUID: return printed as? String == uuid.uuidString
        case let url as URL: return printed as? String == url.absoluteString
        case let dictionary as [String: Any]:
            guard let other = printed as? [String: Any] else { return false }
            return Set(dictionary.keys).union(other.keys).allSatisfy { agree(dictionary[$0], other[$0]) }
        case let number as NSNumber:
            guard let other = printed as? NSNumber else { return false }
            return abs(number.doubleValue - other.doubleValue) <= 1e-9 * max(1, abs(number.doubleValue))
        default: return false
        }
    }
}
