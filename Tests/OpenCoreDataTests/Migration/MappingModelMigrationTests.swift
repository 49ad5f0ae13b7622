import Foundation
import GRDB
import Logging
import Testing

@testable import OpenCoreData

/// The policy CoreDataPlus wrote for its V2 → V3 mapping, in Swift: one Maker per distinct
/// `maker` string of the source cars, linked as each car's `createdBy`.
class V2to3MakerPolicy: NSEntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        guard let car = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first,
            let makerName = sInstance.value(forKey: "maker") as? String
        else { return }
        var makers = manager.userInfo?["makers"] as? [String: NSManagedObject] ?? [:]
        let maker = makers[makerName] ?? NSEntityDescription.insertNewObject(forEntityName: "Maker", into: manager.destinationContext)
        maker.setValue(makerName, forKey: "name")
        makers[makerName] = maker
        manager.userInfo = ["makers": makers]
        car.setValue(maker, forKey: "createdBy")
    }
}

/// A policy that fails, and one that cancels, for the failure paths.
final class FailingPolicy: NSEntityMigrationPolicy {
    struct Refused: Error {}
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        throw Refused()
    }
}

final class CancellingPolicy: NSEntityMigrationPolicy {
    override func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        manager.cancelMigrationWithError(FailingPolicy.Refused())
    }
}

/// Version 2 → 3 of SampleModel with Apple's compiled mapping model `V2toV3.cdm` and the policy
/// above, as CoreDataPlus's test runs it on macOS: 10 makers, 125 cars, `previousOwners` filled
/// from `owner`.
@Suite(.serialized) struct MappingModelMigrationTests {
    static let folder = Fixtures.url("SampleModel/Fixtures")
    static let momd = folder.appendingPathComponent("SampleModel.momd")
    static let policyName = "REPLACE_AT_RUNTIME.V2to3MakerPolicy"

    static func version2Store(in directory: TemporaryDirectory) throws -> URL {
        let copy = directory.file("Cars.sqlite")
        try Data(contentsOf: folder.appendingPathComponent("SampleModel_V2.sqlite")).write(to: copy)
        return copy
    }

    static func model(_ version: String) throws -> NSManagedObjectModel {
        try NSManagedObjectModel(contentsOf: momd, versionName: version)
    }

    static var options: [AnyHashable: Any] { [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true] }

    @Test func theCompiledMappingModelReadsAsXcodeWroteIt() throws {
        let mapping = try #require(NSMappingModel(contentsOf: Self.folder.appendingPathComponent("V2toV3.cdm")))
        let byName = mapping.entityMappingsByName
        #expect(Set(byName.keys) == ["CarToCar", "SportCarToSportCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "Maker"])
        let car = try #require(byName["CarToCar"])
        #expect(car.mappingType == .customEntityMappingType)
        #expect(car.entityMigrationPolicyClassName == Self.policyName)
        let v2 = try Self.model("SampleModel2"), v3 = try Self.model("SampleModel3")
        #expect(car.sourceEntityVersionHash == v2.entitiesByName["Car"]?.versionHash)
        #expect(car.destinationEntityVersionHash == v3.entitiesByName["Car"]?.versionHash)
        #expect(car.sourceExpression?.expressionType == .fetchRequest)
        #expect(car.attributeMappings?.map { $0.name ?? "" }.sorted() == ["markedForDeletionAsOf", "model", "numberPlate"])
        let owners = try #require(car.relationshipMappings?.first { $0.name == "previousOwners" }?.valueExpression)
        #expect(owners.function == "destinationInstancesForEntityMappingNamed:sourceInstances:")
        #expect(owners.operand.variable == "manager")
        #expect(owners.arguments?.first?.constantValue as? String == "PersonToPerson")
        #expect(car.relationshipMappings?.first { $0.name == "createdBy" }?.valueExpression == nil)
        #expect(byName["PersonToPerson"]?.mappingType == .copyEntityMappingType)
        #expect(byName["Maker"]?.mappingType == .addEntityMappingType)
        #expect(byName["Maker"]?.sourceExpression == nil)
    }

    @Test func aBundleSearchFindsTheMappingOfItsTwoModelsOnly() throws {
        let bundle = try #require(Bundle(path: Self.folder.path))
        let v1 = try Self.model("SampleModel"), v2 = try Self.model("SampleModel2"), v3 = try Self.model("SampleModel3")
        #expect(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v3)?.entityMappings.count == 5)
        #expect(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v3) == nil)
        #expect(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v2) == nil)
    }

    /// Each car's number plate, maker name and owner's first name in a version-2 store.
    static func cars(inVersion2StoreAt url: URL) throws -> [(String, String, String)] {
        try DatabaseQueue(path: url.path).read { db in
            try Row.fetchAll(db, sql: "SELECT ZCAR.ZNUMBERPLATE, ZCAR.ZMAKER, ZPERSON.ZFIRSTNAME FROM ZCAR LEFT JOIN ZPERSON ON ZPERSON.Z_PK = ZCAR.ZOWNER")
                .map { ($0[0] as String, ($0[1] as String?) ?? "", ($0[2] as String?) ?? "") }
        }
    }

    /// What the spec says version 3 holds after the migration: 10 makers, 125 cars with their
    /// maker and owner as before, `previousOwners` = {owner}, `previousCars` = `cars`.
    static func expectVersion3(in coordinator: NSPersistentStoreCoordinator, carsBefore before: [(String, String, String)]) throws {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let makers = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Maker"))
            #expect(makers.count == 10)
            #expect(Set(makers.compactMap { $0.value(forKey: "name") as? String }).count == 10)
            let cars = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car"))
            #expect(cars.count == 125)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "LuxuryCar")) == 5)
            #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Person")) == 20)
            var after: [(String, String, String)] = []
            for car in cars {
                let owner = car.value(forKey: "owner") as? NSManagedObject
                let previous = car.value(forKey: "previousOwners") as? Set<NSManagedObject> ?? []
                #expect(previous == (owner.map { [$0] } ?? []))
                let maker = car.value(forKey: "createdBy") as? NSManagedObject
                after.append((car.value(forKey: "numberPlate") as! String, maker?.value(forKey: "name") as? String ?? "", owner?.value(forKey: "firstName") as? String ?? ""))
            }
            #expect(after.sorted { $0.0 < $1.0 }.map { "\($0)" } == before.sorted { $0.0 < $1.0 }.map { "\($0)" })
            for person in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")) {
                #expect(person.value(forKey: "previousCars") as? Set<NSManagedObject> == person.value(forKey: "cars") as? Set<NSManagedObject>)
            }
        }
    }

    @Test func version2BecomesVersion3WithThePolicy() throws {
        NSEntityMigrationPolicy.register(V2to3MakerPolicy.self, forClassName: Self.policyName)
        let directory = TemporaryDirectory()
        let url = try Self.version2Store(in: directory)
        let before = try Self.cars(inVersion2StoreAt: url)

        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model("SampleModel3"))
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: Self.options)
        try Self.expectVersion3(in: coordinator, carsBefore: before)
        #expect(!FileManager.default.fileExists(atPath: directory.file(".Cars.sqlite.migrating").path))
        let (columns, hasMakers) = try DatabaseQueue(path: url.path).read { db in
            (try db.columns(in: "ZCAR").map(\.name), try db.tableExists("ZMAKER"))
        }
        #expect(!columns.contains("ZMAKER"))
        #expect(hasMakers)
    }

    /// A policy's error stops the migration with 134170 and a cancellation with 134120; either
    /// way the store's bytes are as they were and no half-written store is left.
    @Test(arguments: [("failing", NSEntityMigrationPolicyError), ("cancelling", NSMigrationCancelledError)])
    func aFailedMigrationLeavesTheStoreAsItWas(_ policy: String, _ code: Int) throws {
        NSEntityMigrationPolicy.register(policy == "failing" ? FailingPolicy.self : CancellingPolicy.self, forClassName: Self.policyName)
        defer { NSEntityMigrationPolicy.register(V2to3MakerPolicy.self, forClassName: Self.policyName) }
        let directory = TemporaryDirectory()
        let url = try Self.version2Store(in: directory)
        let bytes = try Data(contentsOf: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model("SampleModel3"))
        let error = #expect(throws: NSError.self) {
            try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: Self.options)
        }
        #expect(error?.code == code)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { !$0.hasPrefix("Cars.sqlite") }.isEmpty)
        let version2 = NSPersistentStoreCoordinator(managedObjectModel: try Self.model("SampleModel2"))
        _ = try version2.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: nil)
    }

    /// The manager used directly, as apps that migrate by hand use it: a new store at another
    /// URL, progress reported to the current `Progress`, the source left alone.
    @Test func theManagerWritesANewStoreAndReportsProgress() throws {
        NSEntityMigrationPolicy.register(V2to3MakerPolicy.self, forClassName: Self.policyName)
        let directory = TemporaryDirectory()
        let source = try Self.version2Store(in: directory)
        let bytes = try Data(contentsOf: source)
        let destination = directory.file("Cars3.sqlite")
        let mapping = try #require(NSMappingModel(contentsOf: Self.folder.appendingPathComponent("V2toV3.cdm")))
        let manager = NSMigrationManager(sourceModel: try Self.model("SampleModel2"), destinationModel: try Self.model("SampleModel3"))
        let parent = Progress(totalUnitCount: 1)
        parent.becomeCurrent(withPendingUnitCount: 1)
        try manager.migrateStore(
            from: source, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: destination,
            destinationType: NSSQLiteStoreType, destinationOptions: nil)
        #expect(parent.fractionCompleted == 1)
        parent.resignCurrent()
        #expect(manager.migrationProgress == 1)
        #expect(try Data(contentsOf: source) == bytes)
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: destination)
        let v3 = try Self.model("SampleModel3")
        #expect(v3.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: v3)
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: destination, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let counts = try context.performAndWait {
            (try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Car")), try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Maker")))
        }
        #expect(counts.0 == 125)
        #expect(counts.1 == 10)
        #expect(throws: NSError.self) {
            try manager.migrateStore(
                from: source, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: source,
                destinationType: NSSQLiteStoreType, destinationOptions: nil)
        }
    }

    /// `-com.apple.CoreData.MigrationDebug 1`: each pass of each entity mapping is told.
    @Test func aMappingModelMigrationTellsEachPass() throws {
        NSEntityMigrationPolicy.register(V2to3MakerPolicy.self, forClassName: Self.policyName)
        let directory = TemporaryDirectory()
        let url = try Self.version2Store(in: directory)
        let log = CapturedLog()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model("SampleModel3"))
        coordinator.sqlDebugLevel = 0
        coordinator.migrationDebugLevel = 1
        coordinator.logger = Logger(label: "test.migration") { _ in log.handler }
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: Self.options)
        let messages = log.messages
        #expect(messages.contains { $0.hasPrefix("(migration) migrating the store at ") && $0.hasSuffix("with a compiled mapping model into .Cars.sqlite.migrating") })
        for pass in 1...3 {
            #expect(messages.contains { $0.hasPrefix("(migration) pass \(pass) of 3: entity mapping CarToCar (customEntityMappingType") })
        }
        #expect(messages.contains { $0.hasPrefix("(migration) migration with a mapping model completed successfully in ") })
    }

    /// Read, made and related seven instances at a time, with a save after each batch: the same
    /// version 3, though the policy keeps the makers it made across batches; and the objects of
    /// passed batches are let go of while the migration runs.
    @Test func aMigrationInBatchesGivesTheSameStoreAndLetsPassedBatchesGo() throws {
        NSEntityMigrationPolicy.register(ReleaseWatchingPolicy.self, forClassName: Self.policyName)
        defer { NSEntityMigrationPolicy.register(V2to3MakerPolicy.self, forClassName: Self.policyName) }
        ReleaseWatchingPolicy.reset()
        let directory = TemporaryDirectory()
        let source = try Self.version2Store(in: directory)
        let before = try Self.cars(inVersion2StoreAt: source)
        let destination = directory.file("Cars3.sqlite")
        let mapping = try #require(NSMappingModel(contentsOf: Self.folder.appendingPathComponent("V2toV3.cdm")))
        let manager = NSMigrationManager(sourceModel: try Self.model("SampleModel2"), destinationModel: try Self.model("SampleModel3"))
        manager.instancesPerBatch = 7
        try manager.migrateStore(
            from: source, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: destination,
            destinationType: NSSQLiteStoreType, destinationOptions: nil)
        #expect(ReleaseWatchingPolicy.seen > 40)
        #expect(ReleaseWatchingPolicy.firstSourceGone)
        #expect(ReleaseWatchingPolicy.firstCarGone)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model("SampleModel3"))
        _ = try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: destination, options: nil)
        try Self.expectVersion3(in: coordinator, carsBefore: before)
    }

    /// Validation still covers every object when the migration saved in batches: a required
    /// value left empty fails the migration and leaves no destination store.
    @Test func aMigrationInBatchesValidatesTheWholeNewStore() throws {
        NSEntityMigrationPolicy.register(PlateDroppingPolicy.self, forClassName: Self.policyName)
        defer { NSEntityMigrationPolicy.register(V2to3MakerPolicy.self, forClassName: Self.policyName) }
        let directory = TemporaryDirectory()
        let source = try Self.version2Store(in: directory)
        let destination = directory.file("Cars3.sqlite")
        let mapping = try #require(NSMappingModel(contentsOf: Self.folder.appendingPathComponent("V2toV3.cdm")))
        let manager = NSMigrationManager(sourceModel: try Self.model("SampleModel2"), destinationModel: try Self.model("SampleModel3"))
        manager.instancesPerBatch = 7
        let error = #expect(throws: NSError.self) {
            try manager.migrateStore(
                from: source, sourceType: NSSQLiteStoreType, options: nil, with: mapping, toDestinationURL: destination,
                destinationType: NSSQLiteStoreType, destinationOptions: nil)
        }
        #expect(error?.code == NSValidationMissingMandatoryPropertyError)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}

/// The makers' policy, watching whether the first car read and the first car made are released
/// while later batches run.
final class ReleaseWatchingPolicy: V2to3MakerPolicy {
    nonisolated(unsafe) static weak var firstSource: NSManagedObject?
    nonisolated(unsafe) static weak var firstCar: NSManagedObject?
    nonisolated(unsafe) static var seen = 0
    nonisolated(unsafe) static var firstSourceGone = false
    nonisolated(unsafe) static var firstCarGone = false

    static func reset() {
        (firstSource, firstCar, seen, firstSourceGone, firstCarGone) = (nil, nil, 0, false, false)
    }

    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        Self.seen += 1
        if Self.seen == 1 {
            Self.firstSource = sInstance
            Self.firstCar = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first
        }
        if Self.seen == 40 {
            Self.firstSourceGone = Self.firstSource == nil
            Self.firstCarGone = Self.firstCar == nil
        }
    }
}

/// A policy whose cars lack their required number plate.
final class PlateDroppingPolicy: V2to3MakerPolicy {
    override func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        if let car = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first, sInstance.value(forKey: "numberPlate") as? String == "5" {
            car.setValue(nil, forKey: "numberPlate")
        }
    }
}
