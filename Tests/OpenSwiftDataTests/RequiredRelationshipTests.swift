import Foundation
import Observation
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// A port ferries call home.
@Model final class Harbour {
    var name: String

    init(name: String) { self.name = name }
}

/// A model with a required to-one relationship: `home` is a `Harbour`, not an optional one.
@Model final class Ferry {
    var name: String
    var home: Harbour

    init(name: String, home: Harbour) {
        self.name = name
        self.home = home
    }
}

/// A to-one relationship declared without `?`, as SwiftData allows: derived as a required
/// relationship, stored, read back, and heard by Observation like an optional one.
@Suite struct RequiredRelationshipTests {
    let folder = TemporaryDirectory()

    func container() throws -> ModelContainer {
        try ModelContainer(for: Ferry.self, configurations: ModelConfiguration(url: folder.file("ferries.store")))
    }

    /// Derived as SwiftData derives it: to-one, not optional, nullify, with no inverse.
    @Test func aRequiredRelationshipIsDerivedNotOptional() throws {
        let schema = Schema([Ferry.self])
        let ferry = try #require(schema.entities.first { $0.name == "Ferry" })
        let home = try #require(ferry.relationships.first { $0.name == "home" })
        #expect(home.isToOneRelationship && !home.isOptional && home.deleteRule == .nullify)
        #expect(home.destination == "Harbour" && home.inverseName == nil)
        // The Harbour entity comes with it: the relationship's destination is in the schema.
        #expect(schema.entities.contains { $0.name == "Harbour" })
    }

    /// Saved with the harbour it was made with, read back from another context, and moved.
    @Test func aRequiredRelationshipIsSavedAndReadBack() throws {
        let container = try container()
        let writer = ModelContext(container)
        let ferry = Ferry(name: "Silja Serenade", home: Harbour(name: "Helsinki"))
        writer.insert(ferry)
        try writer.save()
        // The harbour joined the context with the ferry.
        #expect(ferry.home.modelContext === writer)

        let reader = ModelContext(container)
        let read = try #require(try reader.fetch(FetchDescriptor<Ferry>()).first)
        #expect(read.name == "Silja Serenade" && read.home.name == "Helsinki")
        #expect(read.home.persistentModelID == ferry.home.persistentModelID)

        read.home = Harbour(name: "Stockholm")
        try reader.save()
        // A context of its own, held while its models are read (its faults fill through it).
        let third = ModelContext(container)
        let again = try #require(try third.fetch(FetchDescriptor<Ferry>()).first)
        #expect(again.home.name == "Stockholm")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Harbour>()) == 2)
    }

    /// Observed before the ferry is inserted and after it is saved: a new harbour is heard, a
    /// change of the ferry's name is not.
    @Test func aRequiredRelationshipIsHeard() throws {
        let context = ModelContext(try container())
        let ferry = Ferry(name: "Viking Grace", home: Harbour(name: "Turku"))
        for inserting in [false, true] {
            if inserting {
                context.insert(ferry)
                try context.save()
            }
            expectHeard(reading: { _ = ferry.home }, notChanging: { ferry.name += "!" }) {
                ferry.home = Harbour(name: inserting ? "Mariehamn" : "Stockholm")
            }
        }
        #expect(ferry.home.name == "Mariehamn" && ferry.name == "Viking Grace!!")
    }
}
