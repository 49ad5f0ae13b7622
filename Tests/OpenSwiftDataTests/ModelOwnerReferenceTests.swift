import Dispatch
import Foundation
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// A context hands out one model per row while someone holds it, and a new one once it is let
/// go, wherever that happens: what the managed object's reference to its model must keep.
@Suite struct ModelOwnerReferenceTests {
    let folder = TemporaryDirectory()

    func savedContext(trips names: [String]) throws -> ModelContext {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.file("trips.store")))
        let context = ModelContext(container)
        for name in names { context.insert(Trip(name: name)) }
        try context.save()
        return context
    }

    @Test func aModelLetGoIsMadeAgainWithItsRow() throws {
        let context = try savedContext(trips: ["Rome"])
        weak var first: Trip?
        var id: PersistentIdentifier?
        do {
            let trips = try context.fetch(FetchDescriptor<Trip>())
            first = trips.first
            id = trips.first?.persistentModelID
        }
        #expect(first == nil)
        let again = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(again.name == "Rome" && again.persistentModelID == id)
    }

    @Test func aChangedModelLetGoLeavesItsChangeToTheNextModel() throws {
        let context = try savedContext(trips: ["Rome"])
        weak var first: Trip?
        do {
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            trip.nights = 7
            first = trip
        }
        // The change keeps the row's object in the context; its model is gone.
        #expect(first == nil && context.hasChanges)
        let again = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(again.nights == 7 && again.hasChanges)
        // And a relationship reaches the same new model.
        let stop = Stop(place: "Orvieto", order: 1)
        context.insert(stop)
        stop.trip = again
        #expect(again.stops.first === stop && stop.trip === again)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.nights == 7 })).count == 1)
    }

    @Test func modelsLetGoOnAnotherThreadWhileTheirContextFetchesThem() throws {
        let names = (0..<100).map { "Trip \($0)" }
        let context = try savedContext(trips: names)
        let releasing = DispatchQueue(label: "ModelOwnerReferenceTests.releasing")
        for _ in 0..<200 {
            // The only references to this round's models go to the other thread, which drops them
            // while the context fetches the same rows again.
            let handed = Handed(try context.fetch(FetchDescriptor<Trip>()))
            releasing.async { handed.models = [] }
            let fetched = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
            #expect(fetched.count == 100 && fetched.allSatisfy { $0.name.hasPrefix("Trip ") })
        }
        releasing.sync {}
        let last = try context.fetch(FetchDescriptor<Trip>())
        #expect(Set(last.map(\.name)) == Set(names))
    }

    /// Models given to another thread to drop.
    private final class Handed: @unchecked Sendable {
        // @unchecked Sendable: the other thread only drops the array, which nothing else reads.
        var models: [Trip]
        init(_ models: [Trip]) { self.models = models }
    }
}
