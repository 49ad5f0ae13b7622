import Foundation
import GRDB
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Configurations with schemas of their own keep their models in stores of their own, as in
/// SwiftData: each file holds its models' tables and rows, and no other's.
@Suite struct StoreConfigurationsTests {
    let folder = TemporaryDirectory()

    /// Trips (with the stops and travellers they relate to) in one file, people in another.
    func container() throws -> ModelContainer {
        let trips = ModelConfiguration("trips", schema: Schema([Trip.self]), url: folder.file("trips.store"))
        let people = ModelConfiguration("people", schema: Schema([Person.self]), url: folder.file("people.store"))
        return try ModelContainer(for: Schema([Trip.self, Person.self]), configurations: trips, people)
    }

    /// The rows of `table` in `file`, which must exist; nil when it has no such table.
    func rows(of table: String, in file: String) throws -> Int? {
        try #require(FileManager.default.fileExists(atPath: folder.file(file).path))
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: folder.file(file).path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists(table) else { return nil }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")
        }
    }

    @Test func eachModelIsSavedInTheStoreOfItsConfiguration() throws {
        let context = ModelContext(try container())
        context.insert(Person(givenName: "Tove", familyName: "Jansson", age: 86))
        let trip = Trip(name: "Pellinki")
        trip.stops = [Stop(place: "Klovharu", order: 1)]
        context.insert(trip)
        try context.save()

        #expect(try rows(of: "ZTRIP", in: "trips.store") == 1)
        #expect(try rows(of: "ZSTOP", in: "trips.store") == 1)
        #expect(try rows(of: "ZPERSON", in: "people.store") == 1)
        #expect(try rows(of: "ZPERSON", in: "trips.store") == nil)
        #expect(try rows(of: "ZTRIP", in: "people.store") == nil)

        // A new container finds each model in its file.
        let reader = ModelContext(try container())
        #expect(try reader.fetch(FetchDescriptor<Person>()).map(\.familyName) == ["Jansson"])
        #expect(try reader.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Pellinki"])
        #expect(try reader.fetch(FetchDescriptor<Trip>()).first?.stops.map(\.place) == ["Klovharu"])
    }

    /// Models of the two stores inserted in turn: the did-save notification names each with its
    /// own store's identity, in the order inserted, and each name finds its model.
    @Test func didSaveNamesModelsOfBothStoresInsertedInTurn() throws {
        let container = try container()
        let context = ModelContext(container)
        var models: [any PersistentModel] = []
        for number in 1...6 {
            let model: any PersistentModel =
                number.isMultiple(of: 2) ? Person(givenName: "Guest", familyName: "Number \(number)", age: number) : Trip(name: "Trip \(number)")
            context.insert(model)
            models.append(model)
        }
        let named = try insertedIdentifiers(announcedBy: context) { try context.save() }
        #expect(named == models.map(\.persistentModelID))
        #expect(named.map(\.entityName) == ["Trip", "Person", "Trip", "Person", "Trip", "Person"])
        let stores = named.map(\.storeIdentifier)
        #expect(Set(stores.compactMap { $0 }).count == 2)
        #expect(stores[0] == stores[2] && stores[1] == stores[3] && stores[0] != stores[1])

        let reader = ModelContext(container)
        for (identifier, model) in zip(named, models) {
            #expect(reader.model(for: identifier).persistentModelID == identifier)
            #expect(ObjectIdentifier(type(of: reader.model(for: identifier))) == ObjectIdentifier(type(of: model)))
        }
    }

    /// A configuration with the container's whole schema keeps every model, as one without.
    @Test func aConfigurationOfTheWholeSchemaKeepsEveryModel() throws {
        let every = ModelConfiguration("all", schema: Schema([Trip.self, Person.self]), url: folder.file("all.store"))
        let context = ModelContext(try ModelContainer(for: Schema([Trip.self, Person.self]), configurations: every))
        context.insert(Person(givenName: "Moomin", familyName: "Troll", age: 7))
        context.insert(Trip(name: "Moominvalley"))
        try context.save()
        #expect(try rows(of: "ZTRIP", in: "all.store") == 1)
        #expect(try rows(of: "ZPERSON", in: "all.store") == 1)
    }

    /// A migration plan cannot migrate a configuration of its own (its stages' models have no
    /// such configuration): the container is refused, and no file is made.
    @Test func aMigrationPlanWithAConfigurationOfItsOwnIsRefused() {
        let trips = ModelConfiguration("trips", schema: Schema([Trip.self]), url: folder.file("planned-trips.store"))
        let people = ModelConfiguration("people", schema: Schema([Person.self]), url: folder.file("planned-people.store"))
        #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema([Trip.self, Person.self]), migrationPlan: NoStages.self, configurations: trips, people)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("planned-trips.store").path))
    }

    /// A configuration storing a model the container's schema does not have is refused, and no
    /// file is made for it.
    @Test func aConfigurationOfAModelOutsideTheSchemaIsRefused() {
        let people = ModelConfiguration("people", schema: Schema([Person.self]), url: folder.file("strangers.store"))
        #expect(throws: SwiftDataError.self) { try ModelContainer(for: Schema([Trip.self]), configurations: people) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("strangers.store").path))
    }
}

/// A plan of one version and no stage.
private enum NoStages: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [OnlyVersion.self] }
    static var stages: [MigrationStage] { [] }
}

private enum OnlyVersion: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, Person.self] }
}
