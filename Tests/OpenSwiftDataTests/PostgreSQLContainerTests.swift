import Foundation
import PostgreSQLScratchServer
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// `ModelConfiguration(url: postgres://…)`: the same models kept in a PostgreSQL database, shared
/// by containers as by app instances on several machines. Nothing here names the PostgreSQL store
/// type: linking the product is all an app does.
@Suite struct PostgreSQLContainerTests {
    @Test func containersOnOneDatabaseShareModelsUpsertsAndHistory() throws {
        let url = try PostgreSQLDatabase.newStoreURL()
        let writer = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(writer)
        let lisbon = Trip(name: "Lisbon", startDate: Date(timeIntervalSinceReferenceDate: 1_000))
        lisbon.nights = 4
        lisbon.stops = [Stop(place: "Alfama", order: 1), Stop(place: "Belém", order: 2)]
        lisbon.traveller = Traveller(name: "Ana")
        context.insert(lisbon)
        for (name, nights) in [("Trip 10", 2), ("Trip 9", 7), ("oslo", 3)] {
            let trip = Trip(name: name)
            trip.nights = nights
            context.insert(trip)
        }
        try context.save()

        // A second container, as another machine: predicates and sorts run on the server.
        let reader = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        let other = ModelContext(reader)
        let long = try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.nights > 2 }, sortBy: [SortDescriptor(\.name)]))
        #expect(long.map(\.name) == ["Lisbon", "oslo", "Trip 9"])
        let fetched = try #require(long.first)
        #expect(fetched.stops.map(\.place).sorted() == ["Alfama", "Belém"])
        #expect(fetched.traveller?.name == "Ana")
        #expect(fetched.startDate == Date(timeIntervalSinceReferenceDate: 1_000))
        #expect(fetched.persistentModelID == lisbon.persistentModelID)

        // A unique name inserted again from the other container updates the row.
        let again = Trip(name: "Lisbon")
        again.nights = 9
        other.insert(again)
        try other.save()
        let refreshed = ModelContext(writer)
        #expect(try refreshed.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Lisbon" })) == 1)
        #expect(try refreshed.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Lisbon" })).first?.nights == 9)

        // Deleting cascades to the stops, and both saves are in the database's history.
        other.delete(fetched)
        try other.save()
        #expect(try refreshed.fetchCount(FetchDescriptor<Stop>()) == 0)
        #expect(try refreshed.fetchCount(FetchDescriptor<Trip>()) == 3)
        let history = try refreshed.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 3)
        #expect(history.map(\.token) == history.map(\.token).sorted())
    }

    @Test func aRefusedLoginIsALoadIssueWithoutThePassword() throws {
        let url = try PostgreSQLDatabase.newStoreURL()
        var parts = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        parts.password = "wrong-secret"
        let wrong = try #require(parts.url)
        do {
            _ = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: wrong))
            Issue.record("a wrong password opened the database")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(!"\(error)".contains("wrong-secret"))
            #expect(!"\(error)".contains(PostgreSQLScratchServer.password))
        }
    }
}
