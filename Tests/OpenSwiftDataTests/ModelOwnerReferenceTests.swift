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

/// Counts its own deinitializations, so that a test sees a model go without a `weak` reference
/// to it (which would give it a side table and change how its counts are kept).
@Model final class Tally {
    nonisolated(unsafe) static var released = 0
    var count: Int

    init(count: Int) { self.count = count }

    deinit { Tally.released += 1 }
}

/// Tally's models are confined to one test at a time: the count is global.
@Suite(.serialized) struct ModelLifetimeTests {
    let folder = TemporaryDirectory()

    @Test func modelsGoWhenLetGoAndComeBackWithTheirRowsAndChanges() throws {
        let container = try ModelContainer(for: Tally.self, configurations: ModelConfiguration(url: folder.file("tallies.store")))
        let context = ModelContext(container)
        for count in 1...3 { context.insert(Tally(count: count)) }
        try context.save()
        let before = Tally.released
        do {
            let tallies = try context.fetch(FetchDescriptor<Tally>(sortBy: [SortDescriptor(\.count)]))
            tallies[0].count = 10
        }
        // Every fetched model went, the changed one's change stayed with the context.
        #expect(Tally.released - before >= 3 && context.hasChanges)
        let again = try context.fetch(FetchDescriptor<Tally>(sortBy: [SortDescriptor(\.count)]))
        #expect(again.map(\.count) == [2, 3, 10])
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Tally>()).map(\.count).sorted() == [2, 3, 10])
    }
}
