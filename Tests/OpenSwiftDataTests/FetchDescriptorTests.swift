import Foundation
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// `FetchDescriptor` with `#Predicate` and `SortDescriptor`: every predicate form runs in the
/// store and selects what evaluating the same predicate on each model selects.
@Suite struct FetchDescriptorTests {
    let folder = TemporaryDirectory()
    let context: ModelContext

    init() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.file("trips.store")))
        context = ModelContext(container)
        let ana = Traveller(name: "Ana")
        for (index, name) in ["Trip 10", "Trip 9", "trip 2", "Trip 1", "Oslo", "Bergen"].enumerated() {
            let trip = Trip(name: name, startDate: Date(timeIntervalSince1970: Double(index) * 86_400))
            trip.nights = index
            trip.budget = Double(index) * 100
            trip.isBooked = index.isMultiple(of: 2)
            trip.notes = index < 3 ? "note \(index) about Fjords" : nil
            trip.stops = (0..<index % 3).map { Stop(place: "Stop \($0) of \(name)", order: $0) }
            if index > 3 { trip.traveller = ana }
            context.insert(trip)
        }
        try context.save()
    }

    /// The names the store selects, and the names the predicate selects evaluated on each model.
    func selection(_ predicate: Predicate<Trip>) throws -> (store: [String], evaluated: [String]) {
        let all = try context.fetch(FetchDescriptor<Trip>())
        let evaluated = try all.filter { try predicate.evaluate($0) }.map(\.name).sorted()
        let store = try context.fetch(FetchDescriptor(predicate: predicate)).map(\.name).sorted()
        return (store, evaluated)
    }

    @Test func everyPredicateFormRunsInTheStoreAsItEvaluates() throws {
        let limit = 3
        let since = Date(timeIntervalSince1970: 2 * 86_400)
        let names = ["Oslo", "Trip 9"]
        let same = ComparisonResult.orderedSame
        let predicates: [(String, Predicate<Trip>)] = [
            ("comparison", #Predicate { $0.nights > 2 }),
            ("captured", #Predicate { $0.nights >= limit && $0.budget < 500 }),
            ("or and not", #Predicate { !($0.nights == 1) || $0.isBooked }),
            ("Boolean", #Predicate { $0.isBooked }),
            ("date", #Predicate { $0.startDate >= since }),
            ("nil", #Predicate { $0.notes == nil }),
            ("not nil", #Predicate { $0.notes != nil }),
            ("optional chain", #Predicate { $0.notes?.contains("1") == true }),
            ("coalescing", #Predicate { ($0.notes ?? "") == "" }),
            ("contains", #Predicate { $0.name.contains("rip") }),
            ("starts", #Predicate { $0.name.starts(with: "Trip") }),
            ("search", #Predicate { $0.name.localizedStandardContains("TRIP 1") }),
            ("optional search", #Predicate { $0.notes?.localizedStandardContains("fjörd") == true }),
            ("case-insensitive equality", #Predicate { $0.name.caseInsensitiveCompare("trip 1") == same }),
            ("to-one", #Predicate { $0.traveller?.name == "Ana" }),
            ("to-many contains where", #Predicate { $0.stops.contains { $0.order == 1 } }),
            ("isEmpty", #Predicate { $0.stops.isEmpty }),
            ("count", #Predicate { $0.stops.count > 1 }),
            ("captured collection", #Predicate { names.contains($0.name) }),
        ]
        for (form, predicate) in predicates {
            let (store, evaluated) = try selection(predicate)
            #expect(store == evaluated, "\(form)")
            #expect(!store.isEmpty && store.count < 6, "\(form) selects some but not all")
        }
    }

    @Test func stringsSortInFindersOrderUnlessLexical() throws {
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name.starts(with: "T") || $0.name.starts(with: "t") }, sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Trip 1", "trip 2", "Trip 9", "Trip 10"])
        let lexical = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, comparator: .lexical, order: .reverse)]))
        #expect(lexical.map(\.name) == ["trip 2", "Trip 9", "Trip 10", "Trip 1", "Oslo", "Bergen"])
        let byNights = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.nights, order: .reverse)]))
        #expect(byNights.map(\.nights) == [5, 4, 3, 2, 1, 0])
    }

    @Test func limitOffsetAndCountFollowTheDescriptor() throws {
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.nights)])
        descriptor.fetchLimit = 2
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).map(\.nights) == [1, 2])
        #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.isBooked })) == 3)
    }

    @Test func pendingChangesCountUnlessExcluded() throws {
        context.insert(Trip(name: "Unsaved"))
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Unsaved" })
        #expect(try context.fetch(descriptor).count == 1)
        descriptor.includePendingChanges = false
        #expect(try context.fetch(descriptor).isEmpty)
    }

    @Test func aPredicateThatCannotRunIsSwiftDataError() throws {
        let predicate = #Predicate<Trip> { $0.name.count > 3 }
        #expect(throws: SwiftDataError.unsupportedPredicate) { try context.fetch(FetchDescriptor(predicate: predicate)) }
        #expect(throws: SwiftDataError.unsupportedPredicate) { try context.fetchCount(FetchDescriptor(predicate: predicate)) }
    }

    @Test func aCapturedModelComparesByIdentity() throws {
        let ana = try #require(try context.fetch(FetchDescriptor<Traveller>()).first)
        let anaID = ana.persistentModelID
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.traveller?.persistentModelID == anaID }))
        #expect(trips.map(\.name).sorted() == ["Bergen", "Oslo"])
    }
}

/// Batched fetches and enumeration.
@Suite struct BatchedFetchTests {
    let folder = TemporaryDirectory()

    @Test func aBatchedFetchAndAnEnumerationWalkEveryModelInOrder() throws {
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.file("batched.store"))))
        for index in 0..<25 {
            let trip = Trip(name: "Trip \(index)")
            trip.nights = index
            context.insert(trip)
        }
        #expect(throws: SwiftDataError.includePendingChangesWithBatchSize) { try context.fetch(FetchDescriptor<Trip>(), batchSize: 10) }
        try context.save()
        let descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.nights)])
        let batched = try context.fetch(descriptor, batchSize: 10)
        #expect(batched.count == 25 && batched.map(\.nights) == Array(0..<25))
        var walked: [Int] = []
        try context.enumerate(descriptor, batchSize: 7) { walked.append($0.nights) }
        #expect(walked == Array(0..<25))
        var limited = descriptor
        limited.fetchOffset = 3
        limited.fetchLimit = 9
        walked = []
        try context.enumerate(limited, batchSize: 4) { walked.append($0.nights) }
        #expect(walked == Array(3..<12))
    }
}
