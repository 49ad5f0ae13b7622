import Foundation
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// iOS 18's history API over the history tables every save writes.
@Suite struct HistoryTests {
    let folder = TemporaryDirectory()

    @Test func transactionsListInsertsUpdatesAndDeletesAfterAToken() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.file("history.store")))
        let context = ModelContext(container)
        let trip = Trip(name: "Vienna")
        let traveller = Traveller(name: "Mia")
        context.insert(trip)
        context.insert(traveller)
        try context.save()
        trip.nights = 6
        try context.save()
        context.delete(traveller)
        try context.save()

        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(all.count == 3)
        #expect(all.map(\.token) == all.map(\.token).sorted())
        let inserted = all[0].changes.compactMap { change -> PersistentIdentifier? in
            if case .insert(let insert) = change { return insert.changedPersistentIdentifier }
            return nil
        }
        #expect(Set(inserted) == [trip.persistentModelID, traveller.persistentModelID])
        guard case .update(let update)? = all[1].changes.first, let tripUpdate = update as? DefaultHistoryUpdate<Trip> else {
            Issue.record("the second transaction is not an update of a trip: \(all[1].changes)")
            return
        }
        #expect(tripUpdate.updatedAttributes == [\Trip.nights])
        guard case .delete(let delete)? = all[2].changes.first, let travellerDelete = delete as? DefaultHistoryDelete<Traveller> else {
            Issue.record("the third transaction is not a traveller's deletion: \(all[2].changes)")
            return
        }
        #expect(travellerDelete.tombstone[\.name] as? String == "Mia")

        // Tokens compare, survive encoding, and select in a predicate.
        let first = all[0].token
        let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(first))
        #expect(decoded == first && first < all[1].token)
        let later = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > decoded }))
        #expect(later.map(\.transactionIdentifier) == all.dropFirst().map(\.transactionIdentifier))

        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= decoded }))
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
    }
}
