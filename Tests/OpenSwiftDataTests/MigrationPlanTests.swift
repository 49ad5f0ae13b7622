import Foundation
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// A store written by the first version of the models, opened by the third through a migration
/// plan: lightweight rename and addition, then a custom stage removing duplicates before a
/// unique attribute arrives.
@Suite struct MigrationPlanTests {
    let folder = TemporaryDirectory()
    var url: URL { folder.file("trips.store") }

    func writeVersionOne() throws {
        let container = try ModelContainer(for: Schema(versionedSchema: TripSchemaV1.self), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(TripSchemaV1.Trip(name: "Lisbon", nights: 2))
        context.insert(TripSchemaV1.Trip(name: "Lisbon", nights: 5))
        context.insert(TripSchemaV1.Trip(name: "Oslo", nights: 3))
        try context.save()
    }

    @Test func aThreeVersionPlanRenamesAddsAndDeduplicates() throws {
        try writeVersionOne()
        let container = try ModelContainer(for: TripSchemaV3.Trip.self, migrationPlan: TripMigrationPlan.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<TripSchemaV3.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Lisbon", "Oslo"])
        #expect(trips.map(\.duration) == [2, 3])
        #expect(trips.allSatisfy { $0.notes == "migrated" })

        // The unique name now holds: inserting Oslo again updates the stored one.
        let again = TripSchemaV3.Trip(name: "Oslo", duration: 9)
        context.insert(again)
        try context.save()
        let reread = ModelContext(try ModelContainer(for: TripSchemaV3.Trip.self, migrationPlan: TripMigrationPlan.self, configurations: ModelConfiguration(url: url)))
        let oslo = try reread.fetch(FetchDescriptor<TripSchemaV3.Trip>(predicate: #Predicate { $0.name == "Oslo" }))
        #expect(oslo.map(\.duration) == [9])
    }

    @Test func aMiddleVersionStoreTakesOnlyTheRemainingStages() throws {
        do {
            let container = try ModelContainer(for: TripSchemaV2.Trip.self, migrationPlan: nil, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(TripSchemaV2.Trip(name: "Bergen", duration: 1))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: TripSchemaV3.Trip.self, migrationPlan: TripMigrationPlan.self, configurations: ModelConfiguration(url: url)))
        let trips = try context.fetch(FetchDescriptor<TripSchemaV3.Trip>())
        #expect(trips.map(\.name) == ["Bergen"] && trips.first?.notes == "migrated")
    }

    @Test func aSchemaNoMigrationReachesIsSwiftDataErrorAndTheFileIsUntouched() throws {
        try writeVersionOne()
        let before = try Data(contentsOf: url)
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            _ = try ModelContainer(for: TripSchemaClash.Trip.self, configurations: ModelConfiguration(url: url))
        }
        #expect(try Data(contentsOf: url) == before)
        // The first version still opens it.
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: TripSchemaV1.self), configurations: ModelConfiguration(url: url)))
        #expect(try context.fetchCount(FetchDescriptor<TripSchemaV1.Trip>()) == 3)
    }
}
