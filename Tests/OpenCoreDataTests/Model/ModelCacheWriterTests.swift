import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// A store OpenCoreData creates or migrates carries its model in `Z_MODELCACHE` as Core Data
/// writes it (a raw DEFLATE stream of a keyed archive), and the cache reads back as that model:
/// the store's version hashes, and what the hashes leave out (derivations, fetched properties,
/// composite elements, defaults, user info, indexes).
@Suite struct ModelCacheWriterTests {
    enum Source: String, CaseIterable, CustomTestStringConvertible {
        case library, composite, derived, fetched, external, sampleModel2, sampleModel3, broad

        var testDescription: String { rawValue }

        func model() throws -> NSManagedObjectModel {
            switch self {
            case .library: return TestModels.library()
            case .composite: return try NSCompositeAttributeDescriptionTests.model()
            case .derived: return try DerivedAttributeTests.model()
            case .fetched: return try FetchedPropertyTests.model()
            case .external: return ExternalBinaryDataTests.model()
            case .sampleModel2: return SampleModel2.model()
            case .sampleModel3:
                return try NSManagedObjectModel(contentsOf: Fixtures.url("SampleModel3/SampleModel3.xcdatamodeld"), versionName: "SampleModel3_v2")
            case .broad: return ModelCacheWriterTests.broadModel()
            }
        }
    }

    /// What a model built in code can say that an Xcode model cannot always: read-only and
    /// indexed properties, modifiers and renaming identifiers everywhere, a decimal default of
    /// more digits than a double holds, a binary default (which no file format keeps), bounds,
    /// composite elements with settings of their own, configurations, an index and a constraint.
    static func broadModel() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, _ configure: (NSAttributeDescription) -> Void = { _ in }) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            configure(attribute)
            return attribute
        }
        let account = NSEntityDescription()
        account.name = "Account"
        account.versionHashModifier = "v2"
        account.renamingIdentifier = "Ledger"
        account.userInfo = ["owner": "finance"]
        let place = NSCompositeAttributeDescription()
        place.name = "place"
        place.elements = [
            attribute("city", .stringAttributeType) { $0.versionHashModifier = "m"; $0.renamingIdentifier = "town"; $0.isOptional = false },
            attribute("note", .stringAttributeType) { $0.isTransient = true },
        ]
        account.properties = [
            attribute("number", .integer64AttributeType) { $0.isReadOnly = true; $0.isIndexed = true },
            attribute("balance", .decimalAttributeType) { $0.defaultValue = NSDecimalNumber(string: "12.345678901234567891") },
            attribute("blob", .binaryDataAttributeType) { $0.defaultValue = Data([1, 2, 3]) },
            attribute("level", .integer16AttributeType) { $0.rules.minimum = 1; $0.rules.maximum = 9; $0.defaultValue = 3; $0.versionHashModifier = "lv" },
            attribute("opened", .dateAttributeType) { $0.defaultValue = Date(timeIntervalSinceReferenceDate: 1234.5); $0.userInfo = ["k": "v"] },
            attribute("code", .UUIDAttributeType) { $0.renamingIdentifier = "identifier" },
            place,
        ]
        account.uniquenessConstraints = [["number"]]
        account.indexes = [NSFetchIndexDescription(name: "byLevel", elements: [NSFetchIndexElementDescription(property: account.properties[3], collationType: .binary)])]
        let audit = NSEntityDescription()
        audit.name = "Audit"
        audit.properties = [attribute("message", .stringAttributeType)]
        let model = NSManagedObjectModel()
        model.entities = [account, audit]
        model.setEntities([account], forConfigurationName: "Main")
        model.setEntities([account, audit], forConfigurationName: "All")
        model.versionIdentifiers = ["2.1"]
        return model
    }

    /// Creates a store for `model` and returns its cache content.
    private func cache(of model: NSManagedObjectModel, in directory: TemporaryDirectory) throws -> Data {
        let url = directory.file("Store.sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        try coordinator.remove(store)
        return try #require(SQLiteFileCheck.readModelCache(atPath: url.path))
    }

    @Test(arguments: Source.allCases)
    func aNewStoresCacheDecodesToItsModel(_ source: Source) throws {
        let directory = TemporaryDirectory()
        let model = try source.model()
        let content = try cache(of: model, in: directory)
        #expect(content.prefix(8) != Data("bplist00".utf8), "stored deflated, without a zlib header")
        #expect(ModelCache.inflate(content)?.prefix(8) == Data("bplist00".utf8))
        let decoded = try #require(ModelCache.model(from: content))
        #expect(decoded.entityVersionHashesByName == model.entityVersionHashesByName)
        let metadata = try SQLiteFileCheck.readMetadata(atPath: directory.file("Store.sqlite").path).metadata
        #expect(StoreMetadata.hashesMatch(metadata, entities: decoded.entities))
        #expect(Self.summary(of: decoded) == Self.summary(of: model))
        #expect(decoded.configurations == model.configurations)
        for name in model.configurations {
            #expect(decoded.entities(forConfigurationName: name)?.compactMap(\.name).sorted() == model.entities(forConfigurationName: name)?.compactMap(\.name).sorted())
        }
    }

    /// What a model says beyond its version hashes, one line per entity and property.
    static func summary(of model: NSManagedObjectModel) -> [String] {
        var lines: [String] = []
        for entity in model.entities.sorted(by: { $0.name! < $1.name! }) {
            let constraints = entity.uniquenessConstraints.map { $0.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name } }
            let indexes = entity.indexes.map { index in
                index.name + ":" + index.elements.map { "\($0.property?.name ?? $0.propertyName ?? "")\($0.isAscending ? "" : "-")" }.joined(separator: ",")
            }
            lines.append(
                "\(entity.name!) renamed=\(entity.renamingIdentifier ?? entity.name!) abstract=\(entity.isAbstract) parent=\(entity.superentity?.name ?? "-") "
                    + "sub=\(entity.subentities.compactMap(\.name).sorted()) unique=\(constraints) indexes=\(indexes.sorted()) "
                    + "info=\(Self.text(entity.userInfo))")
            for property in entity.properties.sorted(by: { $0.name < $1.name }) {
                var line = "  \(property.name) optional=\(property.isOptional) transient=\(property.isTransient) readOnly=\(property.isReadOnly) "
                    + "indexed=\(property.isIndexed) modifier=\(property.versionHashModifier ?? "-") "
                    + "renamed=\(property.renamingIdentifier ?? property.name) info=\(Self.text(property.userInfo))"
                switch property {
                case let fetched as NSFetchedPropertyDescription:
                    line += " fetches=\(fetched.fetchRequest?.entityName ?? "-") where=\(fetched.fetchRequest?.predicate.map { "\($0)" } ?? "-")"
                case let relationship as NSRelationshipDescription:
                    line += " to=\(relationship.destinationEntity?.name ?? "-") inverse=\(relationship.inverseRelationship?.name ?? "-") "
                        + "count=\(relationship.minCount)...\(relationship.maxCount) ordered=\(relationship.isOrdered) rule=\(relationship.deleteRule.rawValue)"
                case let attribute as NSAttributeDescription:
                    // A Boolean default reads back as a Boolean number.
                    // A binary default is kept by no file format (nor by Core Data's model cache).
                    let defaultValue = attribute.attributeType == .binaryDataAttributeType ? nil
                        : attribute.attributeType == .booleanAttributeType
                        ? attribute.defaultValue.map { "\((($0 as? NSNumber)?.boolValue ?? ($0 as? Bool))!)" } : attribute.defaultValue.map { "\($0)" }
                    line += " type=\(attribute.attributeType.rawValue) default=\(defaultValue ?? "-") "
                        + "external=\(attribute.allowsExternalBinaryDataStorage) min=\(attribute.rules.minimum ?? -1) max=\(attribute.rules.maximum ?? -1)"
                    if let derived = attribute as? NSDerivedAttributeDescription {
                        line += " derived=\(derived.derivationExpression.map { "\($0)" } ?? "-")"
                    }
                    if let composite = attribute as? NSCompositeAttributeDescription {
                        line += " elements=\(composite.elements.map { "\($0.name):\($0.attributeType.rawValue):\($0.isOptional):\($0.isTransient):\($0.versionHashModifier ?? "-"):\($0.renamingIdentifier ?? $0.name)" })"
                    }
                default:
                    break
                }
                lines.append(line)
            }
        }
        return lines
    }

    private static func text(_ info: [AnyHashable: Any]?) -> String {
        (info ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")
    }

    /// Apple's cache of a model with a derived attribute, fetched properties and a subentity
    /// reads with all three.
    @Test func applesCacheReadsDerivedAndFetchedProperties() throws {
        let directory = TemporaryDirectory()
        let copy = directory.file("Store.sqlite")
        try FileManager.default.copyItem(at: Fixtures.url("SampleModel2/SampleModel2_V2.sqlite"), to: copy)
        let content = try #require(SQLiteFileCheck.readModelCache(atPath: copy.path))
        let model = try #require(ModelCache.model(from: content))
        let book = try #require(model.entitiesByName["Book"])
        let pagesCount = try #require(book.propertiesByName["pagesCount"] as? NSDerivedAttributeDescription)
        #expect(pagesCount.derivationExpression.map { "\($0)" } == "count(pages)")
        let novel = try #require(model.entitiesByName["GraphicNovel"])
        #expect(novel.superentity === book)
        #expect(novel.propertiesByName["pagesCount"] is NSDerivedAttributeDescription)
        let author = try #require(model.entitiesByName["Author"])
        let feedbacks = try #require(author.propertiesByName["feedbacks"] as? NSFetchedPropertyDescription)
        #expect(feedbacks.fetchRequest?.entityName == "Feedback")
        #expect(feedbacks.fetchRequest?.predicate.map { "\($0)" } == "authorAlias == $FETCH_SOURCE.alias")
        let books = try #require(author.relationshipsByName["books"])
        #expect(books.isToMany && books.maxCount == .max && books.inverseRelationship?.name == "author")
        // Entities without a derived attribute hash as the store says (a derived one's hash is
        // not known: docs/compatibility.md).
        let metadata = try SQLiteFileCheck.readMetadata(atPath: copy.path).metadata
        let hashes = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data])
        for name in ["Author", "Feedback", "Page", "Writer"] {
            #expect(model.entitiesByName[name]?.versionHash == hashes[name], "\(name)")
        }
    }

    /// A store created by OpenCoreData whose model version the app no longer ships migrates
    /// lightweight from its cache; the migrated store caches the new model.
    @Test func aStoreMigratesFromTheCacheOpenCoreDataWrote() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Store.sqlite")
        func model(_ extra: Bool) -> NSManagedObjectModel {
            var properties = [TestModels.attribute("title", .stringAttributeType), TestModels.attribute("score", .integer32AttributeType, optional: false, defaultValue: 0)]
            if extra { properties.append(TestModels.attribute("note", .stringAttributeType)) }
            let model = NSManagedObjectModel()
            model.entities = [TestModels.entity("Item", properties)]
            return model
        }
        let version1 = model(false)
        do {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version1)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            try context.performAndWait {
                for (title, score) in [("a", 1), ("b", 2)] {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                    item.setValue(title, forKey: "title")
                    item.setValue(score, forKey: "score")
                }
                try context.save()
            }
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        let version2 = model(true)
        let options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let titles = try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            return try context.fetch(request).map { "\($0.value(forKey: "title") ?? "")\($0.value(forKey: "score") ?? "")" }
        }
        #expect(titles == ["a1", "b2"])
        let content = try #require(SQLiteFileCheck.readModelCache(atPath: url.path))
        let cached = try #require(ModelCache.model(from: content))
        #expect(cached.entityVersionHashesByName == version2.entityVersionHashesByName)
        #expect(cached.entityVersionHashesByName != version1.entityVersionHashesByName)
    }
}
