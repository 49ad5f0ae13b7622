import GRDB
import Testing
@testable import OpenCoreData

/// Stores written by Apple's Core Data (Tests/Fixtures/AppleCoreData), opened with their Xcode
/// models and read back exactly.
@Suite struct AppleStoreReadTests {
    /// A coordinator on a copy of an Apple store, with the model version it was written with.
    private func open(_ store: String, model: String, version: String) throws -> (NSManagedObjectContext, TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let copy = directory.file((store as NSString).lastPathComponent)
        try FileManager.default.copyItem(at: Fixtures.url(store), to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.path)
        let model = try NSManagedObjectModel(contentsOf: Fixtures.url(model), versionName: version)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: copy)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, directory)
    }

    private func fetch(_ context: NSManagedObjectContext, _ entity: String, subentities: Bool = true, key: String = "numberPlate") throws -> [NSManagedObject] {
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.includesSubentities = subentities
        request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
        return try context.fetch(request)
    }

    @Test func sampleModelV1ReadsBackRowsValuesRelationshipsAndSubentities() throws {
        let (context, directory) = try open(
            "SampleModel/Fixtures/SampleModel_V1.sqlite", model: "SampleModel/SampleModel.xcdatamodeld", version: "SampleModel")
        try context.performAndWait {
            #expect(try fetch(context, "Car").count == 125)
            #expect(try fetch(context, "Car", subentities: false).count == 115)
            #expect(try fetch(context, "SportCar").count == 10)
            #expect(try fetch(context, "SportCar", subentities: false).count == 5)
            #expect(try fetch(context, "ExpensiveSportCar").count == 5)
            let people = try fetch(context, "Person", key: "lastName")
            #expect(people.count == 20)

            let cars = try fetch(context, "Car")
            let byPlate = Dictionary(uniqueKeysWithValues: cars.map { ($0.value(forKey: "numberPlate") as! String, $0) })

            // A SportCar with an owner, and an ExpensiveSportCar with a Boolean.
            let m6 = try #require(byPlate["200"])
            #expect(m6.entity.name == "SportCar")
            #expect(m6.value(forKey: "maker") as? String == "BMW")
            #expect(m6.value(forKey: "model") as? String == "M6 Coupe")
            let owner = try #require(m6.value(forKey: "owner") as? NSManagedObject)
            #expect(owner.value(forKey: "firstName") as? String != nil)
            #expect((owner.value(forKey: "cars") as! Set<NSManagedObject>).contains(m6))

            let amg = try #require(byPlate["301"])
            #expect(amg.entity.name == "ExpensiveSportCar")
            #expect(amg.value(forKey: "isLimitedEdition") as? Bool == true)
            #expect(byPlate["303"]?.value(forKey: "isLimitedEdition") as? Bool == false)
            #expect(byPlate["303"]?.value(forKey: "owner") == nil)

            // Person rows: strings, a date (seconds since 2001) and a 16-byte UUID.
            let victoria = try #require(people.first { $0.value(forKey: "firstName") as? String == "Victoria" })
            #expect(victoria.value(forKey: "lastName") as? String == "Coster")
            let updatedAt = try #require(victoria.value(forKey: "updatedAt") as? Date)
            #expect(abs(updatedAt.timeIntervalSinceReferenceDate - 639503569.638733) < 0.000_001)
            #expect(victoria.value(forKey: "id") as? UUID == UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115"))

            // The person who owns 100 cars, seen from both sides.
            let stone = try #require(people.first { $0.value(forKey: "lastName") as? String == "Stone" })
            let stoneCars = stone.value(forKey: "cars") as! Set<NSManagedObject>
            #expect(stoneCars.count == 100)
            #expect(stoneCars.allSatisfy { $0.value(forKey: "owner") as? NSManagedObject === stone })
            #expect(cars.filter { $0.value(forKey: "owner") == nil }.count == 7)
        }
        _ = directory
    }

    /// Object-ID fetches name each row's own entity: read from Z_ENT in a table Car and its
    /// subentities share, and known without reading it in Person's table of one entity.
    @Test func objectIDFetchesNameEachRowsEntity() throws {
        let (context, directory) = try open(
            "SampleModel/Fixtures/SampleModel_V1.sqlite", model: "SampleModel/SampleModel.xcdatamodeld", version: "SampleModel")
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "Car")
            request.resultType = .managedObjectIDResultType
            let ids = try context.fetch(request)
            let byEntity = Dictionary(grouping: ids, by: { $0.entity.name ?? "" }).mapValues(\.count)
            #expect(byEntity == ["Car": 115, "SportCar": 5, "ExpensiveSportCar": 5])
            #expect(Set(ids).count == 125)
            let objects = try fetch(context, "Car")
            #expect(Set(objects.map(\.objectID)) == Set(ids))

            let people = NSFetchRequest<NSManagedObjectID>(entityName: "Person")
            people.resultType = .managedObjectIDResultType
            let personIDs = try context.fetch(people)
            #expect(personIDs.count == 20)
            #expect(personIDs.allSatisfy { $0.entity.name == "Person" && !$0.isTemporaryID })
            #expect(Set(try fetch(context, "Person", key: "lastName").map(\.objectID)) == Set(personIDs))
        }
        withExtendedLifetime(directory) {}
    }

    @Test func migratedV2StoreMapsTheRenamedEntityThroughItsRenamingIdentifier() throws {
        let (context, directory) = try open(
            "SampleModel/Fixtures/SampleModel_V2.sqlite", model: "SampleModel/SampleModel.xcdatamodeld", version: "SampleModel2")
        try context.performAndWait {
            #expect(try fetch(context, "Car").count == 125)
            let luxury = try fetch(context, "LuxuryCar")
            #expect(luxury.count == 5)
            #expect(luxury.allSatisfy { $0.entity.name == "LuxuryCar" })
            #expect(try fetch(context, "Person", key: "lastName").count == 20)
        }
        _ = directory
    }

    @Test func sampleModel3StoreReadsItsUsers() throws {
        let (context, directory) = try open(
            "SampleModel3/Fixtures/SampleModel3_V1.sqlite", model: "SampleModel3/SampleModel3.xcdatamodeld", version: "SampleModel3")
        try context.performAndWait {
            let users = try fetch(context, "User", key: "petName")
            #expect(users.count == 12)
            #expect(users.contains { $0.value(forKey: "name") as? String == "User_2" && $0.value(forKey: "petName") as? String == "Dog_2_0" })
        }
        _ = directory
    }

    @Test func writingIntoAnAppleStoreKeepsItsKeySequenceAndIntegrity() throws {
        let (context, directory) = try open(
            "SampleModel/Fixtures/SampleModel_V1.sqlite", model: "SampleModel/SampleModel.xcdatamodeld", version: "SampleModel")
        let url = directory.file("SampleModel_V1.sqlite")
        try context.performAndWait {
            let car = NSEntityDescription.insertNewObject(forEntityName: "ExpensiveSportCar", into: context)
            car.setValue("999", forKey: "numberPlate")
            car.setValue("Ferrari", forKey: "maker")
            try context.save()
            #expect(car.objectID.uriRepresentation().lastPathComponent == "p126")
        }
        let queue = try DatabaseQueue(path: url.path)
        let (max, entity, integrity) = try queue.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Car'"),
                try Int.fetchOne(db, sql: "SELECT Z_ENT FROM ZCAR WHERE ZNUMBERPLATE = '999'"),
                try String.fetchOne(db, sql: "PRAGMA integrity_check")
            )
        }
        try queue.close()
        #expect(max == 126)
        #expect(entity == 3)
        #expect(integrity == "ok")
    }
}
