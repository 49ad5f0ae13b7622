import Foundation
import GRDB
import OpenCoreData
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// A store written through OpenSwiftData is a Core Data store: a Core Data stack with the
/// derived model opens it without a migration, `sqlite3` sees Apple's tables; and the reverse.
@Suite struct FileRoundTripTests {
    let folder = TemporaryDirectory()

    /// A Core Data stack on `url` with the model SwiftData derives, opened without migration
    /// options: a store whose hashes differ would be refused (134100).
    func coreDataContext(_ url: URL) throws -> NSManagedObjectContext {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Trip.self]))
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSSQLiteStoreType, configurationName: nil, at: url, options: [NSPersistentHistoryTrackingKey: true])
        let context = NSManagedObjectContext(concurrencyType: .confinementConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func aSwiftDataStoreOpensInCoreDataAndHasApplesTables() throws {
        let url = folder.file("written.store")
        do {
            let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
            let trip = Trip(name: "Porto")
            trip.nights = 3
            trip.stops = [Stop(place: "Ribeira", order: 1)]
            context.insert(trip)
            try context.save()
        }
        let context = try coreDataContext(url)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Trip")
        let trip = try #require(try context.fetch(request).first)
        #expect(trip.value(forKey: "name") as? String == "Porto" && (trip.value(forKey: "nights") as? NSNumber)?.intValue == 3)
        let stops = trip.value(forKey: "stops") as? Set<NSManagedObject>
        #expect(stops?.first?.value(forKey: "place") as? String == "Ribeira")
        let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: NSSQLiteStoreType, at: url)
        #expect(metadata[NSStoreModelVersionIdentifiersKey] as? [String] == ["1.0.0"])

        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let tables = try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        for table in ["ZTRIP", "ZSTOP", "ZTRAVELLER", "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE", "ATRANSACTION", "ACHANGE"] {
            #expect(tables.contains(table), "\(table) in \(tables)")
        }
        let names = try queue.read { db in try String.fetchAll(db, sql: "SELECT Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT") }
        #expect(Array(names.prefix(3)) == ["Stop", "Traveller", "Trip"])
    }

    @Test func aCoreDataStoreOfTheDerivedModelOpensInSwiftData() throws {
        let url = folder.file("coredata.store")
        do {
            let context = try coreDataContext(url)
            let trip = NSEntityDescription.insertNewObject(forEntityName: "Trip", into: context)
            trip.setValue("Faro", forKey: "name")
            trip.setValue(Date(timeIntervalSince1970: 0), forKey: "startDate")
            trip.setValue(5, forKey: "nights")
            trip.setValue(UUID(), forKey: "code")
            let stop = NSEntityDescription.insertNewObject(forEntityName: "Stop", into: context)
            stop.setValue("Lagos", forKey: "place")
            stop.setValue(1, forKey: "order")
            stop.setValue(trip, forKey: "trip")
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url)))
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.name == "Faro" && trip.nights == 5 && trip.stops.map(\.place) == ["Lagos"])
    }

    /// The derived model hashes as the same model built by hand, as an Xcode model would give it.
    @Test func derivedHashesEqualAHandBuiltModels() throws {
        let derived = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Hotel.self]))
        let hotel = NSEntityDescription()
        hotel.name = "Hotel"
        func attribute(_ name: String, _ type: NSAttributeType, optional: Bool = false) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = optional
            return attribute
        }
        func address(_ name: String, optional: Bool) -> NSCompositeAttributeDescription {
            let location = NSCompositeAttributeDescription()
            location.name = "location"
            location.isOptional = false
            location.elements = [attribute("latitude", .doubleAttributeType), attribute("longitude", .doubleAttributeType)]
            let address = NSCompositeAttributeDescription()
            address.name = name
            address.isOptional = optional
            address.elements = [
                attribute("street", .stringAttributeType), attribute("city", .stringAttributeType),
                attribute("postcode", .stringAttributeType, optional: true), location, attribute("kind", .stringAttributeType),
            ]
            return address
        }
        hotel.properties = [
            attribute("name", .stringAttributeType), address("address", optional: false), attribute("transport", .stringAttributeType),
            attribute("priority", .integer64AttributeType, optional: true), attribute("tags", .binaryDataAttributeType),
            attribute("rooms", .binaryDataAttributeType), address("checkIn", optional: true),
        ]
        let handBuilt = NSManagedObjectModel()
        handBuilt.entities = [hotel]
        let derivedHotel = try #require(derived.entitiesByName["Hotel"])
        for property in hotel.properties {
            #expect(derivedHotel.propertiesByName[property.name]?.versionHash == property.versionHash, "\(property.name)")
        }
        #expect(derived.entityVersionHashesByName["Hotel"] == handBuilt.entityVersionHashesByName["Hotel"])
    }
}
