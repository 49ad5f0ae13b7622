import Foundation
import OpenCoreData
import Testing

/// Code as a Core Data user writes it on Apple platforms, in Apple's spellings only (no
/// `@testable`, nothing of OpenCoreData's own): each test fails to compile if a name is missing,
/// and fails at run time if it means something else.
@Suite(.serialized) struct AppleSpellingTests {
    /// Person(name: String, required; age: Integer 16), built with the iOS 15 `type` spelling.
    static func model() -> NSManagedObjectModel {
        let person = NSEntityDescription()
        person.name = "Person"
        let name = NSAttributeDescription()
        name.name = "name"
        name.type = .string
        name.isOptional = false
        let age = NSAttributeDescription()
        age.name = "age"
        age.type = .integer16
        person.properties = [name, age]
        let model = NSManagedObjectModel()
        model.entities = [person]
        return model
    }

    private func container(
        in directory: TemporaryDirectory, model: NSManagedObjectModel = model(), migrates: Bool = true
    ) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "People", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: directory.file("People.sqlite"))
        description.shouldMigrateStoreAutomatically = migrates
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        return container
    }

    @Test func aSaveIsObservedThroughNSManagedObjectContextDidSave() throws {
        let directory = TemporaryDirectory()
        let container = try container(in: directory)
        let context = container.newBackgroundContext()
        let received = Received()
        let observer = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextDidSave, object: context, queue: nil) { note in
            let inserted = note.userInfo?[NSManagedObjectContext.NotificationKey.insertedObjects.rawValue] as? Set<NSManagedObject>
            received.add((note.name.rawValue, inserted?.compactMap { $0.value(forKey: "name") as? String } ?? []))
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let willSave = NotificationCenter.default.addObserver(forName: .NSManagedObjectContextWillSave, object: context, queue: nil) { note in
            received.add((note.name.rawValue, []))
        }
        defer { NotificationCenter.default.removeObserver(willSave) }

        try context.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            person.setValue("Ada", forKey: "name")
            try context.save()
        }
        #expect(received.all.map(\.0) == [NSManagedObjectContext.willSaveObjectsNotification.rawValue, NSManagedObjectContext.didSaveObjectsNotification.rawValue])
        #expect(received.all.last?.1 == ["Ada"])
    }

    @Test func theSwiftEraNamesAreTheSameNotifications() {
        #expect(NSManagedObjectContext.didSaveObjectsNotification == .NSManagedObjectContextDidSave)
        #expect(NSManagedObjectContext.willSaveObjectsNotification == .NSManagedObjectContextWillSave)
        #expect(NSManagedObjectContext.didChangeObjectsNotification == .NSManagedObjectContextObjectsDidChange)
        #expect(NSManagedObjectContext.didSaveObjectIDsNotification == .NSManagedObjectContextDidSaveObjectIDs)
        #expect(NSManagedObjectContext.didMergeChangesObjectIDsNotification == .NSManagedObjectContextDidMergeChangesObjectIDs)
        // Apple's strings, so that a name made from a string elsewhere matches.
        #expect(NSNotification.Name.NSManagedObjectContextDidSave.rawValue == "NSManagingContextDidSaveChangesNotification")
        #expect(NSNotification.Name.NSManagedObjectContextObjectsDidChange.rawValue == "NSObjectsChangedInManagingContextNotification")
        #expect(NSNotification.Name.NSPersistentStoreRemoteChange.rawValue == "NSPersistentStoreRemoteChangeNotification")
        let everyName: [NSNotification.Name] = [
            .NSManagedObjectContextWillSave, .NSManagedObjectContextDidSave, .NSManagedObjectContextObjectsDidChange,
            .NSManagedObjectContextDidSaveObjectIDs, .NSManagedObjectContextDidMergeChangesObjectIDs,
            .NSPersistentStoreCoordinatorStoresWillChange, .NSPersistentStoreCoordinatorStoresDidChange,
            .NSPersistentStoreCoordinatorWillRemoveStore, .NSPersistentStoreRemoteChange,
            .NSPersistentStoreDidImportUbiquitousContentChanges, .NSCoreDataCoreSpotlightDelegateIndexDidUpdate,
        ]
        #expect(Set(everyName).count == everyName.count)
    }

    @Test func notificationKeysAreApplesStrings() {
        let keys: [(NSManagedObjectContext.NotificationKey, String)] = [
            (.queryGeneration, "newQueryGeneration"), (.invalidatedAllObjects, NSInvalidatedAllObjectsKey),
            (.insertedObjects, NSInsertedObjectsKey), (.updatedObjects, NSUpdatedObjectsKey), (.deletedObjects, NSDeletedObjectsKey),
            (.refreshedObjects, NSRefreshedObjectsKey), (.invalidatedObjects, NSInvalidatedObjectsKey),
            (.insertedObjectIDs, NSInsertedObjectIDsKey), (.updatedObjectIDs, NSUpdatedObjectIDsKey),
            (.deletedObjectIDs, NSDeletedObjectIDsKey), (.refreshedObjectIDs, NSRefreshedObjectIDsKey),
            (.invalidatedObjectIDs, NSInvalidatedObjectIDsKey),
        ]
        for (key, string) in keys { #expect(key.rawValue == string) }
        #expect([NSAddedPersistentStoresKey, NSRemovedPersistentStoresKey, NSUUIDChangedPersistentStoresKey] == ["added", "removed", "changedUUID"])
    }

    @Test func aMissingRequiredValueIsCaughtAsCocoaErrorByItsCode() throws {
        let directory = TemporaryDirectory()
        let context = try container(in: directory).newBackgroundContext()
        var caught: CocoaError?
        context.performAndWait {
            _ = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
            do {
                try context.save()
            } catch let error as CocoaError where error.code == .validationMissingMandatoryProperty {
                caught = error
            } catch {
                Issue.record("not caught by its code: \(error)")
            }
        }
        #expect(caught?.code == CocoaError.validationMissingMandatoryProperty)
        #expect(caught?.userInfo[NSValidationKeyErrorKey] as? String == "name")
    }

    @Test func aStoreOfAnotherModelIsCaughtAsPersistentStoreIncompatibleVersionHash() throws {
        let directory = TemporaryDirectory()
        let first = try container(in: directory)
        try first.viewContext.performAndWait {
            let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: first.viewContext)
            person.setValue("Ada", forKey: "name")
            try first.viewContext.save()
        }
        let coordinator = first.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.remove(store) }

        let other = Self.model()
        let extra = NSAttributeDescription()
        extra.name = "email"
        extra.type = .string
        other.entities[0].properties.append(extra)
        // Without migration, as Core Data: a description migrates by default, and a model built
        // in code has no other version to migrate from (134130).
        do {
            _ = try container(in: directory, model: other, migrates: false)
            Issue.record("a store of another model opened")
        } catch let error as CocoaError where error.code == .persistentStoreIncompatibleVersionHash {
            #expect(error.code.rawValue == NSPersistentStoreIncompatibleVersionHashError)
        }
        // Migrating, the model Core Data keeps in every store is the source: the attribute is
        // added and the person kept.
        let migrated = try container(in: directory, model: other)
        let people = try migrated.viewContext.performAndWait {
            try migrated.viewContext.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).map { $0.value(forKey: "name") as? String }
        }
        #expect(people == ["Ada"])
    }

    @Test func everyCocoaErrorCodeHasApplesValue() {
        let codes: [(CocoaError.Code, Int)] = [
            (.managedObjectValidation, 1550), (.validationMultipleErrors, 1560), (.validationMissingMandatoryProperty, 1570),
            (.validationRelationshipLacksMinimumCount, 1580), (.validationRelationshipExceedsMaximumCount, 1590),
            (.validationRelationshipDeniedDelete, 1600), (.validationNumberTooLarge, 1610), (.validationNumberTooSmall, 1620),
            (.validationDateTooLate, 1630), (.validationDateTooSoon, 1640), (.validationInvalidDate, 1650),
            (.validationStringTooLong, 1660), (.validationStringTooShort, 1670), (.validationStringPatternMatching, 1680),
            (.managedObjectContextLocking, 132000), (.persistentStoreCoordinatorLocking, 132010),
            (.managedObjectReferentialIntegrity, 133000), (.managedObjectExternalRelationship, 133010),
            (.managedObjectMerge, 133020), (.managedObjectConstraintMerge, 133021),
            (.persistentStoreInvalidType, 134000), (.persistentStoreTypeMismatch, 134010),
            (.persistentStoreIncompatibleSchema, 134020), (.persistentStoreSave, 134030), (.persistentStoreIncompleteSave, 134040),
            (.persistentStoreSaveConflicts, 134050), (.coreData, 134060), (.persistentStoreOperation, 134070),
            (.persistentStoreOpen, 134080), (.persistentStoreTimeout, 134090), (.persistentStoreUnsupportedRequestType, 134091),
            (.persistentStoreIncompatibleVersionHash, 134100), (.migration, 134110), (.migrationCancelled, 134120),
            (.migrationMissingSourceModel, 134130), (.migrationMissingMappingModel, 134140),
            (.migrationManagerSourceStore, 134150), (.migrationManagerDestinationStore, 134160),
            (.entityMigrationPolicy, 134170), (.sqlite, 134180), (.inferredMappingModel, 134190), (.externalRecordImport, 134200),
        ]
        #expect(codes.count == 42)
        for (code, value) in codes { #expect(code.rawValue == value) }
        #expect(NSPersistentHistoryTokenExpiredError == 134301)
        #expect(NSStagedMigrationBackwardMigrationError == 134506)
    }

    @Test func attributeTypesConvertBothWays() {
        let attribute = NSAttributeDescription()
        attribute.type = .date
        #expect(attribute.attributeType == .dateAttributeType)
        attribute.attributeType = .UUIDAttributeType
        #expect(attribute.type == .uuid)
        #expect(NSAttributeDescription.AttributeType(rawValue: .integer64AttributeType) == .integer64)
        let expression = NSExpressionDescription()
        expression.resultType = .integer64
        #expect(expression.expressionResultType == .integer64AttributeType)
    }

    @Test func addingAndRemovingAStoreIsPosted() throws {
        let directory = TemporaryDirectory()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
        let received = Received()
        let didChange = NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorStoresDidChange, object: coordinator, queue: nil) { note in
            let added = (note.userInfo?[NSAddedPersistentStoresKey] as? [NSPersistentStore])?.count ?? 0
            let removed = (note.userInfo?[NSRemovedPersistentStoresKey] as? [NSPersistentStore])?.count ?? 0
            received.add(("didChange", ["added \(added)", "removed \(removed)"]))
        }
        defer { NotificationCenter.default.removeObserver(didChange) }
        let store = try coordinator.addPersistentStore(type: .sqlite, at: directory.file("People.sqlite"))
        let willRemove = NotificationCenter.default.addObserver(forName: .NSPersistentStoreCoordinatorWillRemoveStore, object: store, queue: nil) { _ in
            received.add(("willRemove", []))
        }
        defer { NotificationCenter.default.removeObserver(willRemove) }
        try coordinator.remove(store)
        #expect(received.all.map(\.0) == ["didChange", "willRemove", "didChange"])
        #expect(received.all.first?.1 == ["added 1", "removed 0"])
        #expect(received.all.last?.1 == ["added 0", "removed 1"])
    }

    @Test func aClassMethodCreatesACoordinatorOfItsOwnClass() {
        let coordinator: NSPersistentStoreCoordinator = LibraryCoordinator.make(model: Self.model())
        #expect(type(of: coordinator) == LibraryCoordinator.self)
        #expect(type(of: NSPersistentStoreCoordinator.make(model: Self.model())) == NSPersistentStoreCoordinator.self)
    }

    /// `request as! NSFetchRequest<NSFetchRequestResult>` traps on Linux (Swift generics are not
    /// erased); the form that works on both platforms makes the request with that type.
    @Test func aBatchDeleteTakesARequestMadeForNSFetchRequestResult() throws {
        let directory = TemporaryDirectory()
        let container = try container(in: directory)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for name in ["Ada", "Grace"] {
                let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
                person.setValue(name, forKey: "name")
            }
            try context.save()
            let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Person")
            request.predicate = NSPredicate(format: "name == %@", "Ada")
            let delete = NSBatchDeleteRequest(fetchRequest: request)
            delete.resultType = .resultTypeCount
            let result = try context.execute(delete) as? NSBatchDeleteResult
            #expect(result?.result as? Int == 1)
        }
    }
}

/// A factory written as Apple-platform code writes it (CoreDataPlus has one): it needs the
/// initializer to be `required`.
extension NSPersistentStoreCoordinator {
    static func make(model: NSManagedObjectModel) -> Self {
        Self.init(managedObjectModel: model)
    }
}

final class LibraryCoordinator: NSPersistentStoreCoordinator, @unchecked Sendable {}

/// What observers saw, from whichever thread posted.
final class Received: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var items: [(String, [String])] = []

    func add(_ item: (String, [String])) { lock.withLock { items.append(item) } }
    var all: [(String, [String])] { lock.withLock { items } }
}
