import Foundation
import Observation
import Synchronization
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Observing models that were read before, outside any observation: what an app does when it
/// sums or lists a fetch's models in a loop and then shows one of them.
@Suite struct ModelObservationTests {
    let folder = TemporaryDirectory()

    func container() throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.file("trips.store")))
    }

    /// Fetched models read in a loop, then one observed: its change is heard, another's is not.
    @Test func aFetchedModelReadBeforeItIsObservedIsHeard() throws {
        let container = try container()
        let writer = ModelContext(container)
        writer.insert(Trip(name: "Bergen", startDate: .now))
        writer.insert(Trip(name: "Oslo", startDate: .now))
        try writer.save()

        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.reduce(0) { $0 + $1.nights } == 2)
        let (bergen, oslo) = (trips[0], trips[1])
        expectNightsHeard(of: oslo, notOtherChanges: { bergen.nights = 2 })
    }

    /// A new model read and changed before anyone observes it, then observed: heard.
    @Test func aNewModelReadBeforeItIsObservedIsHeard() throws {
        let trip = Trip(name: "Turku", startDate: .now)
        trip.nights = trip.nights + 1
        expectNightsHeard(of: trip, notOtherChanges: { trip.budget = 100 })
    }

    /// Each kind of property tells its observers of a change, before the model is inserted and
    /// after it is saved: values Core Data holds as they are, a `Decimal`, a `Codable` struct,
    /// an enum, an array of values, to-one and to-many relationships.
    @Test func everyKindOfPropertyIsHeard() throws {
        let container = try ModelContainer(for: Trip.self, Hotel.self, configurations: ModelConfiguration(url: folder.file("kinds.store")))
        let context = ModelContext(container)
        let address = Address(street: "Khreshchatyk 1", city: "Kyiv", location: Location(latitude: 50.45, longitude: 30.52), kind: .train)
        let hotel = Hotel(name: "Dnipro", address: address)
        let trip = Trip(name: "Kyiv", startDate: .now)
        let stop = Stop(place: "Lviv", order: 1)
        for models in [[], [hotel, trip, stop] as [any PersistentModel]] {
            for model in models { context.insert(model) }
            try context.save()
            expectHeard(reading: { _ = hotel.name }, changing: { hotel.name += "!" })
            expectHeard(reading: { _ = trip.price }, changing: { trip.price += 12.5 })
            expectHeard(reading: { _ = hotel.address }, changing: { hotel.address.city += "!" })
            expectHeard(reading: { _ = hotel.transport }, changing: { hotel.transport = hotel.transport == .boat ? .plane : .boat })
            expectHeard(reading: { _ = hotel.tags }, changing: { hotel.tags.append("river") })
            expectHeard(reading: { _ = trip.traveller }, changing: { trip.traveller = Traveller(name: "Olena") })
            expectHeard(reading: { _ = trip.stops }, changing: { trip.stops = trip.stops.isEmpty ? [stop] : [] })
        }
        #expect(hotel.name == "Dnipro!!" && hotel.address.city == "Kyiv!!" && hotel.tags == ["river", "river"])
    }

    /// A model that starts in its unattached object (its class's entity known from an earlier
    /// insert) tells its observers of a change before its insert and after its save.
    @Test func anUnattachedModelIsHeard() throws {
        let context = ModelContext(try ModelContainer(for: Parcel.self, configurations: ModelConfiguration(url: folder.file("parcels.store"))))
        context.insert(Parcel(label: "first"))
        let parcel = Parcel(label: "second")
        guard case .unattached = parcel.persistentBackingData else {
            Issue.record("a Parcel made after an insert is \(parcel.persistentBackingData)")
            return
        }
        for inserting in [false, true] {
            if inserting {
                context.insert(parcel)
                try context.save()
            }
            expectHeard(reading: { _ = parcel.label }, changing: { parcel.label += "!" })
            expectHeard(reading: { _ = parcel.weight }, changing: { parcel.weight += 1.5 })
            expectHeard(reading: { _ = parcel.transport }, changing: { parcel.transport = parcel.transport == .boat ? .plane : .boat })
            expectHeard(reading: { _ = parcel.priority }, changing: { parcel.priority = parcel.priority == .high ? .low : .high })
            expectHeard(reading: { _ = parcel.code }, changing: { parcel.code = UUID() })
            expectHeard(reading: { _ = parcel.rating }, changing: { parcel.rating += 1 })
        }
        #expect(parcel.label == "second!!" && parcel.weight == 3 && parcel.rating == 2 && parcel.priority == .low)
    }

    /// Observation tells of a change before it is made (a `willSet`, as in SwiftData): the
    /// observer reads the old value, new, inserted and saved.
    @Test func anObserverReadsTheValueBeforeTheChange() throws {
        let context = ModelContext(try container())
        let trip = Trip(name: "Narvik", startDate: .now)
        let box = Unchecked(trip)
        for stage in 0..<3 {
            if stage == 1 { context.insert(trip) }
            if stage == 2 { try context.save() }
            let seen = SeenNights()
            let before = trip.nights
            withObservationTracking { _ = trip.nights } onChange: { seen.record(box.value.nights) }
            trip.nights = before + 10
            #expect(seen.value == before)
            #expect(trip.nights == before + 10)
        }
    }

    /// Observes `trip`'s nights: `otherChanges` are not heard, a change of the nights is.
    private func expectNightsHeard(of trip: Trip, notOtherChanges otherChanges: () -> Void) {
        let changed = Flag()
        withObservationTracking { _ = trip.nights } onChange: { changed.set() }
        otherChanges()
        #expect(!changed.isSet)
        trip.nights += 10
        #expect(changed.isSet)
    }

    /// A model read first inside another observable's tracking, after that observable: the
    /// tracking hears both.
    @Test func aTrackingThatReadsAnotherObservableFirstHearsTheModel() throws {
        let context = ModelContext(try container())
        let trip = Trip(name: "Tampere", startDate: .now)
        context.insert(trip)
        try context.save()
        _ = trip.notes
        let screen = Screen()
        let changed = Flag()
        withObservationTracking { _ = (screen.title, trip.notes) } onChange: { changed.set() }
        trip.notes = "by ferry"
        #expect(changed.isSet)
    }

    /// Two models never observed, read in one tracking, the second inside a nested tracking:
    /// a change of either is heard by the outer tracking, of the second by the inner.
    @Test func modelsReadInOneTrackingAreEachHeard() throws {
        let first = Trip(name: "Pori", startDate: .now)
        let second = Trip(name: "Vaasa", startDate: .now)
        let outer = Flag()
        let inner = Flag()
        withObservationTracking {
            _ = first.nights
            withObservationTracking { _ = second.nights } onChange: { inner.set() }
        } onChange: {
            outer.set()
        }
        second.nights = 3
        #expect(outer.isSet && inner.isSet)

        let again = Flag()
        withObservationTracking { _ = (first.nights, second.nights) } onChange: { again.set() }
        first.nights = 2
        #expect(again.isSet)
    }

    /// A model made with its defaults only, observed on another thread than the one changing
    /// it (each thread probes with its own spare registrar).
    @Test func aModelObservedOnAnotherThreadIsHeard() async throws {
        let changed = Flag()
        let note = Unchecked(Note())
        await Task.detached {
            withObservationTracking { _ = note.value.text } onChange: { changed.set() }
        }.value
        note.value.text = "written"
        #expect(changed.isSet)
    }

    /// `Observations` over a model read before: the change arrives as the sequence's next value
    /// (a change not heard would leave the sequence waiting: the limit ends the test then).
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @Test(.timeLimit(.minutes(1))) func observationsOfAModelReadBeforeDeliverItsChange() async throws {
        let container = try container()
        let writer = ModelContext(container)
        writer.insert(Trip(name: "Kuopio", startDate: .now))
        try writer.save()
        let trip = try #require(try ModelContext(container).fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.nights == 1)
        let box = Unchecked(trip)
        var values = Observations { box.value.nights }.makeAsyncIterator()
        #expect(await values.next() == 1)
        trip.nights = 7
        #expect(await values.next() == 7)
    }
}

/// A model whose properties all have defaults, made without setting any.
@Model final class Note {
    var text = ""

    init() {}
}

/// What an observer read, kept across threads.
private final class SeenNights: Sendable {
    private let seen = Mutex<Int?>(nil)
    var value: Int? { seen.withLock { $0 } }
    func record(_ nights: Int) { seen.withLock { $0 = nights } }
}

/// An observable that is not a model.
@Observable private final class Screen {
    var title = "Trips"
}

/// A model handed to `Observations`' closure, which must be `Sendable`; read on this test's
/// task only.
private struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
