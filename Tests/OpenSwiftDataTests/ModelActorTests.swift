import Foundation
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// An importer as apps write them: a model actor with its own context, handing out identifiers.
@ModelActor actor TripImporter {
    func importTrips(prefix: String, count: Int) throws -> [PersistentIdentifier] {
        var trips: [Trip] = []
        for index in 0..<count {
            let trip = Trip(name: "\(prefix) \(index)")
            trip.nights = index
            trip.stops = [Stop(place: "\(prefix) stop", order: index)]
            modelContext.insert(trip)
            trips.append(trip)
        }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    func insertTrip(named name: String, nights: Int) throws {
        let trip = Trip(name: name)
        trip.nights = nights
        modelContext.insert(trip)
        try modelContext.save()
    }

    func nights(of id: PersistentIdentifier) -> Int? {
        self[id, as: Trip.self]?.nights
    }

    func count() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<Trip>())
    }
}

@Suite struct ModelActorTests {
    let folder = TemporaryDirectory()

    func container() throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.file("import.store")))
    }

    @Test func fourActorsImportIntoOneStoreAtOnce() async throws {
        let container = try container()
        let importers = (0..<4).map { _ in TripImporter(modelContainer: container) }
        let identifiers = try await withThrowingTaskGroup(of: [PersistentIdentifier].self) { group in
            for (number, importer) in importers.enumerated() {
                group.addTask { try await importer.importTrips(prefix: "Importer \(number)", count: 250) }
            }
            var all: [PersistentIdentifier] = []
            for try await batch in group { all += batch }
            return all
        }
        #expect(identifiers.count == 1000 && Set(identifiers).count == 1000)
        #expect(identifiers.allSatisfy { $0.storeIdentifier != nil })

        // Another actor, and a container opened afresh, find every row by its identifier.
        let reader = TripImporter(modelContainer: try self.container())
        #expect(try await reader.count() == 1000)
        #expect(await reader.nights(of: identifiers[260]) == 10)
        let context = ModelContext(try self.container())
        #expect(try context.fetchCount(FetchDescriptor<Stop>()) == 1000)
    }

    @Test func aUniqueValueSavedFromTwoActorsAtOnceIsOneRow() async throws {
        let container = try container()
        let first = TripImporter(modelContainer: container)
        let second = TripImporter(modelContainer: container)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await first.insertTrip(named: "Shared", nights: 3) }
            group.addTask { try await second.insertTrip(named: "Shared", nights: 5) }
            try await group.waitForAll()
        }
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Shared" }))
        #expect(trips.count == 1)
        #expect(trips.first.map { [3, 5].contains($0.nights) } == true)
    }

    @Test func anIdentifierFromAnotherStoreFindsNothing() async throws {
        let importer = TripImporter(modelContainer: try container())
        let id = try await importer.importTrips(prefix: "Here", count: 1)[0]
        let elsewhere = TemporaryDirectory()
        let other = TripImporter(modelContainer: try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: elsewhere.file("other.store"))))
        #expect(await other.nights(of: id) == nil)
    }
}
