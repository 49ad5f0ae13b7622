import CustomStores
import Foundation
import Testing

@testable import OpenCoreData
@testable import OpenCoreDataPostgreSQL

/// The stores the conformance suite runs on: every test body runs on each, so that what a user
/// notices (values, order, faults, conflicts, errors) is the same whichever store holds the data.
/// Where Core Data's stores differ on purpose (its in-memory store runs no batch request and
/// keeps no history), the store says so and the test expects the documented refusal.
enum ConformanceStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case sqlite
    /// On the throwaway server `PostgreSQLServer` starts, a schema per stack.
    case postgreSQL
    /// A custom `NSIncrementalStore` written against the public API only (`CustomStores`).
    case keyValue
    /// A custom `NSAtomicStore` written against the public API only: one JSON file.
    case jsonFile

    /// OpenCoreData's own stores, for the bodies that test what only they promise (optimistic
    /// locking, uniqueness constraints, version hashes in the metadata): a custom store does
    /// what its author writes.
    static let builtIn: [ConformanceStore] = [.inMemory, .sqlite, .postgreSQL]

    var testDescription: String { rawValue }

    var type: NSPersistentStore.StoreType {
        switch self {
        case .inMemory: .inMemory
        case .sqlite: .sqlite
        case .postgreSQL: NSPersistentStore.StoreType(rawValue: PostgreSQLStoreInstaller.typeName)
        case .keyValue: NSPersistentStore.StoreType(rawValue: KeyValueStore.storeType)
        case .jsonFile: NSPersistentStore.StoreType(rawValue: JSONFileStore.storeType)
        }
    }

    /// Whether the store runs `NSBatchUpdateRequest`, `NSBatchDeleteRequest` and
    /// `NSBatchInsertRequest` (otherwise: `NSPersistentStoreUnsupportedRequestTypeError`).
    var runsBatchRequests: Bool { self == .sqlite || self == .postgreSQL }

    /// Whether the store records persistent history when asked.
    var keepsHistory: Bool { self == .sqlite || self == .postgreSQL }

    /// Whether the store's data outlives its coordinator, so that a second coordinator reads it.
    var isPersistent: Bool { self != .inMemory && self != .keyValue }

    /// A store of this kind with `model`, in `directory`.
    func stack(_ model: NSManagedObjectModel, in directory: TemporaryDirectory, options: [AnyHashable: Any]? = nil) throws -> ConformanceStack {
        let url = self == .postgreSQL ? try PostgreSQLServer.required().storeURL() : directory.file("Conformance.store")
        // Custom stores are registered as apps register them.
        NSPersistentStoreCoordinator.registerStoreClass(KeyValueStore.self, forStoreType: KeyValueStore.storeType)
        NSPersistentStoreCoordinator.registerStoreClass(JSONFileStore.self, forStoreType: JSONFileStore.storeType)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: type, at: url, options: options)
        return ConformanceStack(kind: self, model: model, url: url, options: options, coordinator: coordinator, store: store)
    }
}

/// A coordinator with one store of the kind under test.
struct ConformanceStack {
    let kind: ConformanceStore
    let model: NSManagedObjectModel
    let url: URL
    let options: [AnyHashable: Any]?
    let coordinator: NSPersistentStoreCoordinator
    let store: NSPersistentStore

    /// A new private-queue context on the coordinator.
    func context(mergePolicy: Any = NSErrorMergePolicy) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        context.mergePolicy = mergePolicy
        return context
    }

    /// A context that reads what the store holds, not what a context remembers: on a second
    /// coordinator where the data outlives the first, on a new context of this one otherwise.
    func readerContext() throws -> NSManagedObjectContext {
        guard kind.isPersistent else { return context() }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: kind.type, at: url, options: options)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Inserts one object of `entity` with `values` in `context` (on its queue).
    @discardableResult
    static func insert(_ entity: String, _ values: [String: Any], into context: NSManagedObjectContext) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
    }
}
