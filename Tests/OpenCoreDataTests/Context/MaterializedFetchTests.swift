import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// A vehicle that counts its `awakeFromFetch` calls and notes what it could read in the first.
class AwakeCountingVehicle: NSManagedObject {
    private(set) var awakenings = 0
    private(set) var wasFaultWhenAwoken: Bool?
    private(set) var nameWhenAwoken: String?

    override func awakeFromFetch() {
        super.awakeFromFetch()
        awakenings += 1
        if wasFaultWhenAwoken == nil {
            wasFaultWhenAwoken = isFault
            nameWhenAwoken = value(forKey: "name") as? String
        }
    }
}

/// A vehicle that, awaking as `v1`, fetches `v50` (an object of the same fetch, later in it) and
/// reads it, noting how often `v50` had awoken by then.
final class PeekingVehicle: AwakeCountingVehicle {
    private(set) var awakeningsSeenOfV50: Int?

    override func awakeFromFetch() {
        super.awakeFromFetch()
        guard value(forKey: "name") as? String == "v1", let context = managedObjectContext else { return }
        let request = NSFetchRequest<AwakeCountingVehicle>(entityName: "Vehicle")
        request.predicate = NSPredicate(format: "name == 'v50'")
        guard let other = try? context.fetch(request).first else { return }
        _ = other.value(forKey: "name")
        awakeningsSeenOfV50 = other.awakenings
    }
}

/// A fetch with `returnsObjectsAsFaults = false` fills its new objects as it registers them, and
/// runs `awakeFromFetch` for each once its read is over, also when the read fails part way.
@Suite struct MaterializedFetchTests {
    /// More vehicles than one chunk of the store's read holds (`SQLiteStore.rowsPerChunk`).
    static let count = SQLiteStore.rowsPerChunk + 100

    /// `DamagedStoreTests.model()`, its vehicles of `AwakeCountingVehicle`: the hierarchy's rows
    /// carry their entity's number, which the read checks.
    static func model(_ vehicleClass: AwakeCountingVehicle.Type = AwakeCountingVehicle.self) -> NSManagedObjectModel {
        let model = DamagedStoreTests.model()
        model.entitiesByName["Vehicle"]!.managedObjectClassName = String(reflecting: vehicleClass)
        return model
    }

    /// A store of `count` vehicles named `v1`, `v2`…, in key order; `damage` runs on the closed
    /// file before it is opened again.
    static func store(
        in folder: TemporaryDirectory, vehicleClass: AwakeCountingVehicle.Type = AwakeCountingVehicle.self,
        damage: ((Database) throws -> Void)? = nil
    ) throws -> TestStack {
        let stack = try TestStack(model: model(vehicleClass), directory: folder)
        try stack.context.performAndWait {
            for number in 1...count {
                NSEntityDescription.insertNewObject(forEntityName: "Vehicle", into: stack.context).setValue("v\(number)", forKey: "name")
            }
            try stack.context.save()
        }
        guard let damage else { return stack }
        try stack.coordinator.remove(stack.store)
        try DatabaseQueue(path: stack.url.path).writeWithoutTransaction { try damage($0) }
        return try TestStack(model: stack.coordinator.managedObjectModel, directory: folder)
    }

    /// A context of `stack`'s coordinator that has registered nothing: the stack's own context
    /// may still hold the objects its save wrote, which a fetch returns as they are (a large
    /// save lets go of them on a second thread, a moment after it returns).
    static func freshContext(of stack: TestStack) -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = stack.coordinator
        return context
    }

    static func request(asFaults: Bool, predicate: NSPredicate? = nil) -> NSFetchRequest<AwakeCountingVehicle> {
        let request = NSFetchRequest<AwakeCountingVehicle>(entityName: "Vehicle")
        request.returnsObjectsAsFaults = asFaults
        request.predicate = predicate
        return request
    }

    @Test func everyObjectAwakesOnceWithItsValues() throws {
        let folder = TemporaryDirectory()
        let context = Self.freshContext(of: try Self.store(in: folder))
        try context.performAndWait {
            // Some registered before, as faults that have not awoken.
            let held = try context.fetch(Self.request(asFaults: true, predicate: NSPredicate(format: "name ENDSWITH '7'")))
            #expect(!held.isEmpty && held.allSatisfy { $0.isFault && $0.awakenings == 0 })

            let vehicles = try context.fetch(Self.request(asFaults: false))
            #expect(vehicles.count == Self.count)
            #expect(vehicles.allSatisfy { !$0.isFault && $0.awakenings == 1 && $0.wasFaultWhenAwoken == false })
            #expect(vehicles.map(\.nameWhenAwoken) == (1...Self.count).map { "v\($0)" })
            #expect(held.allSatisfy { $0.awakenings == 1 })

            // Fetched again, registered objects do not awake again.
            _ = try context.fetch(Self.request(asFaults: false))
            #expect(vehicles.allSatisfy { $0.awakenings == 1 })
        }
    }

    /// An object of the fetch that the app's `awakeFromFetch` of an earlier one reaches awakes
    /// before it is used, and not again when the fetch finishes.
    @Test func anObjectUsedBeforeItsTurnAwakesFirstAndOnce() throws {
        let folder = TemporaryDirectory()
        let context = Self.freshContext(of: try Self.store(in: folder, vehicleClass: PeekingVehicle.self))
        try context.performAndWait {
            let request = NSFetchRequest<PeekingVehicle>(entityName: "Vehicle")
            request.returnsObjectsAsFaults = false
            let vehicles = try context.fetch(request)
            #expect(vehicles.count == Self.count)
            #expect(vehicles[0].awakeningsSeenOfV50 == 1)
            #expect(vehicles[49].nameWhenAwoken == "v50" && vehicles[49].awakenings == 1)
        }
    }

    /// Without property values, the objects are filled one by one after the read (which spans
    /// two chunks), and each awakes once, with its values.
    @Test func objectsFetchedWithoutValuesAreFilledAndAwakeOnce() throws {
        let folder = TemporaryDirectory()
        let context = Self.freshContext(of: try Self.store(in: folder))
        try context.performAndWait {
            let request = Self.request(asFaults: false)
            request.includesPropertyValues = false
            let vehicles = try context.fetch(request)
            #expect(vehicles.count == Self.count)
            #expect(vehicles.allSatisfy { !$0.isFault && $0.awakenings == 1 && $0.wasFaultWhenAwoken == false })
            #expect(vehicles.map(\.nameWhenAwoken) == (1...Self.count).map { "v\($0)" })
        }
    }

    @Test func aReadThatFailsPartWayAwakensTheObjectsItFilled() throws {
        let folder = TemporaryDirectory()
        let damagedKey = SQLiteStore.rowsPerChunk + 50
        let stack = try Self.store(in: folder) { db in
            try db.execute(sql: "UPDATE ZVEHICLE SET Z_ENT = 99 WHERE Z_PK = ?", arguments: [damagedKey])
        }
        let context = stack.context
        try context.performAndWait {
            // Keeps what the failed read registered, so that it can be looked at.
            context.retainsRegisteredObjects = true
            let error = try #require(throws: NSError.self) { try context.fetch(Self.request(asFaults: false)) }
            #expect(error.code == NSFileReadCorruptFileError, "\(error)")
            let registered = context.registeredObjects.compactMap { $0 as? AwakeCountingVehicle }
            // The first chunk was registered before the read met the damaged row.
            #expect(registered.count >= SQLiteStore.rowsPerChunk)
            #expect(registered.allSatisfy { !$0.isFault && $0.awakenings == 1 && $0.nameWhenAwoken != nil })
        }
    }
}
