import Foundation

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

// Three versions of a model, as WWDC23's "Model your schema with SwiftData" evolves one: a
// rename and an added property (lightweight), then a unique name that needs duplicates removed
// first (custom).

enum TripSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        var name: String
        var nights: Int

        init(name: String, nights: Int) {
            self.name = name
            self.nights = nights
        }
    }
}

enum TripSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        var name: String
        @Attribute(originalName: "nights") var duration: Int
        var notes: String?

        init(name: String, duration: Int) {
            self.name = name
            self.duration = duration
        }
    }
}

enum TripSchemaV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        @Attribute(originalName: "nights") var duration: Int
        var notes: String?

        init(name: String, duration: Int) {
            self.name = name
            self.duration = duration
        }
    }
}

/// A version whose `name` is a number: no lightweight migration reaches it from the others.
enum TripSchemaClash: VersionedSchema {
    static let versionIdentifier = Schema.Version(9, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        var name: Int

        init(name: Int) { self.name = name }
    }
}

enum TripMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripSchemaV1.self, TripSchemaV2.self, TripSchemaV3.self] }
    static var stages: [MigrationStage] { [toV2, toV3] }

    static let toV2 = MigrationStage.lightweight(fromVersion: TripSchemaV1.self, toVersion: TripSchemaV2.self)

    static let toV3 = MigrationStage.custom(
        fromVersion: TripSchemaV2.self, toVersion: TripSchemaV3.self,
        willMigrate: { context in
            // Keep the first trip of each name, so that the unique name can be added.
            var seen = Set<String>()
            for trip in try context.fetch(FetchDescriptor<TripSchemaV2.Trip>(sortBy: [SortDescriptor(\.duration)])) {
                if !seen.insert(trip.name).inserted { context.delete(trip) }
            }
            try context.save()
        },
        didMigrate: { context in
            for trip in try context.fetch(FetchDescriptor<TripSchemaV3.Trip>()) { trip.notes = "migrated" }
            try context.save()
        })
}
