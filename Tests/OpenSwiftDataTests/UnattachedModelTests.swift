import Foundation
import Observation
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// A model of attributes only, used by this suite alone.
@Model final class Postcard {
    var place: String
    var stamps = 1
    var isSent = false
    var note: String?

    init(place: String) { self.place = place }
}

/// A model whose values Core Data holds as they are or by raw value.
@Model final class Parcel {
    var label: String
    var transport: Transport = Transport.train
    var priority: Priority?
    var weight: Decimal = 0
    var code: UUID = UUID()
    var link: URL?
    var photo: Data?
    var rating: Int16 = 0

    init(label: String) { self.label = label }
}

/// A model of this suite's container-lifetime test alone: no other test registers its entity.
@Model final class Stamp {
    var value: Int

    init(value: Int) { self.value = value }
}

/// A new model of a class whose entity is known starts in the managed object it is inserted
/// as: what a user sees of it before and after the insert is what a detached model shows.
@Suite struct UnattachedModelTests {
    let folder = TemporaryDirectory()

    func container(_ name: String, for type: any PersistentModel.Type = Postcard.self) throws -> ModelContainer {
        try ModelContainer(for: type, configurations: ModelConfiguration(url: folder.file(name)))
    }

    /// Inserting one model of the class lets the next ones start in their object.
    func contextThatInsertedOne(_ name: String = "cards.store") throws -> ModelContext {
        let context = ModelContext(try container(name))
        context.insert(Postcard(place: "Sintra"))
        return context
    }

    @Test func aNewModelStartsInItsObjectAndIsSavedFromIt() throws {
        let context = try contextThatInsertedOne()
        let card = Postcard(place: "Évora")
        guard case .unattached = card.persistentBackingData else {
            Issue.record("a Postcard made after an insert is \(card.persistentBackingData)")
            return
        }
        // Not in a context until inserted, with its initial and assigned values.
        #expect(card.modelContext == nil && card.hasChanges && !card.isDeleted)
        #expect(card.place == "Évora" && card.stamps == 1 && !card.isSent && card.note == nil)
        card.note = "Greetings"
        card.stamps = 3
        context.insert(card)
        #expect(card.modelContext === context && card.hasChanges)
        try context.save()
        #expect(!card.hasChanges)

        let stored = try ModelContext(context.container).fetch(FetchDescriptor<Postcard>(predicate: #Predicate { $0.place == "Évora" }))
        #expect(stored.count == 1)
        #expect(stored.first?.note == "Greetings" && stored.first?.stamps == 3 && stored.first?.isSent == false)
        // The inserted model is the one its context hands out for the row.
        #expect(try context.fetch(FetchDescriptor<Postcard>()).contains { $0 === card })
    }

    @Test func aModelNeverInsertedHasNoContextOrRow() throws {
        let context = try contextThatInsertedOne()
        let card = Postcard(place: "Faro")
        let other = Postcard(place: "Faro")
        #expect(card.persistentModelID != other.persistentModelID)
        context.delete(card)
        #expect(context.insertedModelsArray.count == 1)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Postcard>()) == 1)
        #expect(card.modelContext == nil && card.place == "Faro")
    }

    /// A model made while another container's entity was known goes into this container's
    /// entity with every value, and its observers keep hearing it.
    @Test func aModelMadeForAnotherContainerMovesIntoThisOne() throws {
        _ = try contextThatInsertedOne("first.store")
        let card = Postcard(place: "Tavira")
        card.isSent = true
        let changed = Flag()
        withObservationTracking {
            _ = card.note
        } onChange: {
            changed.set()
        }
        let context = ModelContext(try container("second.store"))
        context.insert(card)
        card.note = "Sunny"
        #expect(changed.isSet)
        try context.save()

        let stored = try ModelContext(context.container).fetch(FetchDescriptor<Postcard>())
        #expect(stored.map(\.place) == ["Tavira"])
        #expect(stored.first?.isSent == true && stored.first?.note == "Sunny" && stored.first?.stamps == 1)
        #expect(try context.fetch(FetchDescriptor<Postcard>()).first === card)
    }

    /// Enums by raw value and values Core Data holds as they are go into the unattached object
    /// as they are set, read back from it before the insert, and are saved from it.
    @Test func enumsAndLeafValuesGoIntoTheUnattachedObject() throws {
        let context = ModelContext(try container("parcels.store", for: Parcel.self))
        context.insert(Parcel(label: "First"))
        let parcel = Parcel(label: "Second")
        guard case .unattached = parcel.persistentBackingData else {
            Issue.record("a Parcel made after an insert is \(parcel.persistentBackingData)")
            return
        }
        let code = parcel.code
        parcel.transport = .boat
        parcel.priority = .high
        parcel.weight = Decimal(string: "2.75")!
        parcel.link = URL(string: "https://example.org/parcels/2")
        parcel.photo = Data([1, 2, 3])
        parcel.rating = -4
        #expect(parcel.transport == .boat && parcel.priority == .high && parcel.weight == Decimal(string: "2.75")!)
        #expect(parcel.code == code && parcel.photo == Data([1, 2, 3]) && parcel.rating == -4)
        context.insert(parcel)
        try context.save()

        let stored = try ModelContext(context.container).fetch(FetchDescriptor<Parcel>(predicate: #Predicate { $0.label == "Second" }))
        let read = try #require(stored.first)
        #expect(read.transport == .boat && read.priority == .high && read.weight == Decimal(string: "2.75")!)
        #expect(read.code == code && read.link?.absoluteString == "https://example.org/parcels/2" && read.photo == Data([1, 2, 3]) && read.rating == -4)
    }

    /// A class with values Core Data keeps encoded (a composite, JSON) starts detached: until the
    /// insert, a model holds what it was given, as SwiftData's does.
    @Test func aClassWithEncodedValuesStartsDetached() throws {
        let context = ModelContext(try container("hotels.store", for: Hotel.self))
        let home = Address(street: "Rua Augusta 1", city: "Lisboa", postcode: nil, location: Location(latitude: 38.7, longitude: -9.1), kind: .boat)
        context.insert(Hotel(name: "First", address: home))
        let hotel = Hotel(name: "Second", address: home)
        guard case .detached = hotel.persistentBackingData else {
            Issue.record("a Hotel starts as \(hotel.persistentBackingData)")
            return
        }
        hotel.rooms = [Room(number: 12, beds: 2)]
        #expect(hotel.address == home && hotel.rooms == [Room(number: 12, beds: 2)])
        context.insert(hotel)
        try context.save()
        let stored = try ModelContext(context.container).fetch(FetchDescriptor<Hotel>(predicate: #Predicate { $0.name == "Second" }))
        #expect(stored.first?.rooms == [Room(number: 12, beds: 2)] && stored.first?.address == home)
    }

    /// The entity new models start in is not kept once its container is gone: they start
    /// detached again, and nothing holds the old model's entity.
    @Test func aGoneContainersEntityIsNotUsed() throws {
        weak var entity: AnyObject?
        do {
            let container = try container("stamps.store", for: Stamp.self)
            ModelContext(container).insert(Stamp(value: 1))
            guard case .unattached(let object) = Stamp(value: 2).persistentBackingData else {
                Issue.record("a Stamp made after an insert starts detached")
                return
            }
            entity = object.entity
        }
        #expect(entity == nil)
        guard case .detached = Stamp(value: 3).persistentBackingData else {
            Issue.record("a Stamp made after its container went starts in its entity")
            return
        }
    }

    /// A class with relationships keeps starting detached: its models join a context through
    /// the models they refer to.
    @Test func aClassWithRelationshipsStartsDetached() throws {
        let context = ModelContext(try container("trips.store", for: Trip.self))
        context.insert(Trip(name: "Porto"))
        let trip = Trip(name: "Braga")
        guard case .detached = trip.persistentBackingData else {
            Issue.record("a Trip starts as \(trip.persistentBackingData)")
            return
        }
        let stop = Stop(place: "Guimarães", order: 1)
        trip.stops = [stop]
        context.insert(trip)
        #expect(stop.modelContext === context && stop.trip === trip)
    }
}
