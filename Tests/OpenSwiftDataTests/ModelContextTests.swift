import Foundation
import Observation
import Synchronization
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Inserting, saving, fetching and deleting models through `ModelContext`, as an app does.
@Suite struct ModelContextTests {
    let folder = TemporaryDirectory()

    func container() throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.file("trips.store")))
    }

    @Test func everyPropertyKindSurvivesASaveAndANewContainer() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let code = UUID()
        do {
            let context = ModelContext(try container())
            let trip = Trip(name: "Lisbon", startDate: date)
            trip.budget = 1234.5
            trip.nights = 4
            trip.isBooked = true
            trip.notes = "by train"
            trip.code = code
            trip.website = URL(string: "https://example.com/lisbon")
            trip.photo = Data([1, 2, 3])
            trip.price = Decimal(string: "99.95")!
            trip.rating = 5
            trip.stops = [Stop(place: "Porto", order: 1), Stop(place: "Coimbra", order: 2)]
            trip.traveller = Traveller(name: "Ana")
            context.insert(trip)
            #expect(context.hasChanges && trip.modelContext === context)
            try context.save()
            #expect(!context.hasChanges && !trip.hasChanges)
        }
        let context = ModelContext(try container())
        let trips = try context.fetch(FetchDescriptor<Trip>())
        let trip = try #require(trips.first)
        #expect(trips.count == 1)
        #expect(trip.name == "Lisbon" && trip.startDate == date && trip.budget == 1234.5 && trip.nights == 4 && trip.isBooked)
        #expect(trip.notes == "by train" && trip.code == code && trip.website == URL(string: "https://example.com/lisbon"))
        #expect(trip.photo == Data([1, 2, 3]) && trip.price == Decimal(string: "99.95")! && trip.rating == 5)
        #expect(trip.stops.map(\.place).sorted() == ["Coimbra", "Porto"])
        #expect(trip.stops.allSatisfy { $0.trip === trip })
        #expect(trip.traveller?.name == "Ana" && trip.traveller?.trips.first === trip)
        #expect(try context.fetchCount(FetchDescriptor<Stop>()) == 2)
    }

    @Test func aRowIsOneModelPerContextWhileHeld() throws {
        let context = ModelContext(try container())
        context.insert(Trip(name: "Rome"))
        try context.save()
        let first = try context.fetch(FetchDescriptor<Trip>())
        let second = try context.fetch(FetchDescriptor<Trip>())
        #expect(first[0] === second[0])
        let id = first[0].persistentModelID
        #expect(context.model(for: id) as? Trip === first[0])
        #expect(context.registeredModel(for: id) as Trip? === first[0])

        let other = ModelContext(try container())
        #expect((other.model(for: id) as? Trip)?.name == "Rome")
    }

    @Test func identifiersAreStableAndCodable() throws {
        let context = ModelContext(try container())
        let trip = Trip(name: "Oslo")
        context.insert(trip)
        try context.save()
        let id = trip.persistentModelID
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(id))
        #expect(decoded == id)
        let later = ModelContext(try container())
        #expect(try later.fetchIdentifiers(FetchDescriptor<Trip>()) == [id])
        #expect((later.model(for: decoded) as? Trip)?.name == "Oslo")
    }

    @Test func insertingAUniqueValueAgainUpdatesTheStoredModel() throws {
        let context = ModelContext(try container())
        let first = Trip(name: "Paris")
        first.nights = 2
        context.insert(first)
        try context.save()

        let again = ModelContext(try container())
        let second = Trip(name: "Paris")
        second.nights = 7
        again.insert(second)
        try again.save()

        let check = ModelContext(try container())
        let trips = try check.fetch(FetchDescriptor<Trip>())
        #expect(trips.count == 1)
        #expect(trips.first?.nights == 7)
    }

    @Test func deletingCascadesAndNullifiesAsTheRulesSay() throws {
        let context = ModelContext(try container())
        let trip = Trip(name: "Bern")
        let traveller = Traveller(name: "Jo")
        trip.stops = [Stop(place: "Thun", order: 1)]
        trip.traveller = traveller
        context.insert(trip)
        try context.save()

        context.delete(trip)
        #expect(trip.isDeleted && context.deletedModelsArray.count == 1)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Stop>()) == 0)
        let travellers = try context.fetch(FetchDescriptor<Traveller>())
        #expect(travellers.count == 1 && travellers.first?.trips.isEmpty == true)

        context.insert(Trip(name: "A"))
        context.insert(Trip(name: "B"))
        try context.save()
        try context.delete(model: Trip.self, where: #Predicate { $0.name == "A" })
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Trip>()).map(\.name) == ["B"])
    }

    @Test func rollbackForgetsUnsavedChanges() throws {
        let context = ModelContext(try container())
        let trip = Trip(name: "Kyiv")
        context.insert(trip)
        try context.save()
        trip.nights = 9
        context.insert(Trip(name: "Lviv"))
        #expect(context.insertedModelsArray.count == 1 && context.changedModelsArray.count == 1)
        context.rollback()
        #expect(!context.hasChanges && trip.nights == 1)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    /// `didSave` names the saved models: the new ones by their permanent identifiers, the
    /// changed and the deleted ones.
    @Test func didSaveListsInsertedUpdatedAndDeletedIdentifiers() throws {
        let context = ModelContext(try container())
        let kept = Trip(name: "Tartu")
        let dropped = Trip(name: "Narva")
        context.insert(kept)
        context.insert(dropped)
        let lists = Mutex<[[PersistentIdentifier]]>([])
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            let keys = [ModelContext.NotificationKey.insertedIdentifiers, .updatedIdentifiers, .deletedIdentifiers]
            let found = keys.map { note.userInfo?[$0.rawValue] as? [PersistentIdentifier] ?? [] }
            lists.withLock { $0.append(contentsOf: found) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.save()
        kept.nights = 3
        let added = Trip(name: "Pärnu")
        context.insert(added)
        context.delete(dropped)
        try context.save()

        let saved = lists.withLock { $0 }
        #expect(saved.count == 6)
        guard saved.count == 6 else { return }
        #expect(Set(saved[0]) == [kept.persistentModelID, dropped.persistentModelID] && saved[1].isEmpty && saved[2].isEmpty)
        #expect(saved[0].allSatisfy { $0.storeIdentifier != nil })
        #expect(saved[3] == [added.persistentModelID] && saved[4] == [kept.persistentModelID] && saved[5] == [dropped.persistentModelID])
    }

    /// Models of two classes inserted in turn: `didSave` names each with its own class, store
    /// and row, in the order inserted.
    @Test func didSaveNamesModelsOfSeveralClassesInsertedInTurn() throws {
        let context = ModelContext(try container())
        var models: [any PersistentModel] = []
        for number in 1...6 {
            let model: any PersistentModel = number.isMultiple(of: 2) ? Stop(place: "Stop \(number)", order: number) : Trip(name: "Trip \(number)")
            context.insert(model)
            models.append(model)
        }
        let named = try insertedIdentifiers(announcedBy: context) { try context.save() }
        #expect(named == models.map(\.persistentModelID))
        #expect(named.map(\.entityName) == ["Trip", "Stop", "Trip", "Stop", "Trip", "Stop"])
        #expect(Set(named).count == 6 && named.allSatisfy { $0.storeIdentifier != nil })
    }

    @Test func transactionSavesWhatItsBlockChanged() throws {
        let context = ModelContext(try container())
        let inserted = try insertedIdentifiers(announcedBy: context) {
            try context.transaction {
                context.insert(Trip(name: "Tallinn"))
            }
        }
        #expect(!context.hasChanges)
        #expect(inserted.count == 1 && inserted.first?.entityName == "Trip")
        #expect(try ModelContext(try container()).fetchCount(FetchDescriptor<Trip>()) == 1)
    }

    @Test func aModelIsObservable() throws {
        let trip = Trip(name: "Riga")
        let changed = Flag()
        withObservationTracking {
            _ = trip.nights
        } onChange: {
            changed.set()
        }
        trip.nights = 3
        #expect(changed.isSet)
    }

    /// A model changed before anything read it, inserted and saved, then fetched: observing it
    /// still reports the change of what was read, and only that.
    @Test func aFetchedModelIsObservedAfterUnobservedChanges() throws {
        let container = try container()
        let context = ModelContext(container)
        let trip = Trip(name: "Vilnius")
        trip.nights = 2
        trip.budget = 10
        context.insert(trip)
        trip.nights = 4
        try context.save()

        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first)
        let nightsChanged = Flag()
        let budgetChanged = Flag()
        withObservationTracking { _ = fetched.nights } onChange: { nightsChanged.set() }
        withObservationTracking { _ = fetched.budget } onChange: { budgetChanged.set() }
        fetched.name = "Vilnius old town"
        #expect(!nightsChanged.isSet && !budgetChanged.isSet)
        fetched.nights = 5
        #expect(nightsChanged.isSet && !budgetChanged.isSet)
        #expect(fetched.nights == 5 && fetched.budget == 10)
    }

    /// An observer of a model before it is inserted still hears of its changes after, also once
    /// the model is saved.
    @Test func aModelObservedBeforeItsInsertIsObservedAfter() throws {
        let context = ModelContext(try container())
        let trip = Trip(name: "Tallinn")
        let changed = Flag()
        withObservationTracking { _ = trip.nights } onChange: { changed.set() }
        context.insert(trip)
        #expect(!changed.isSet)
        trip.nights = 6
        #expect(changed.isSet)

        let stop = Stop(place: "Tartu", order: 1)
        let stopChanged = Flag()
        withObservationTracking { _ = stop.order } onChange: { stopChanged.set() }
        context.insert(stop)
        try context.save()
        stop.order = 2
        #expect(stopChanged.isSet && stop.order == 2)
    }
}

/// A flag set from an `onChange` closure, which must be `Sendable`.
final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
