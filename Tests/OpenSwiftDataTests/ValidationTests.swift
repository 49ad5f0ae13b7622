import Foundation
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

@Model final class Concert {
    var title: String
    @Relationship(deleteRule: .cascade, minimumModelCount: 2, maximumModelCount: 3) var acts: [Act] = []

    init(title: String) { self.title = title }
}

@Model final class Act {
    var name: String
    var concert: Concert?

    init(name: String) { self.name = name }
}

/// The schema's rules hold at save: a save that breaks one fails and writes nothing.
@Suite struct ValidationTests {
    let folder = TemporaryDirectory()

    @Test func aSaveThatBreaksARelationshipCountFailsAndWritesNothing() throws {
        let container = try ModelContainer(for: Concert.self, configurations: ModelConfiguration(url: folder.file("concerts.store")))
        let context = ModelContext(container)
        let concert = Concert(title: "Proms")
        concert.acts = [Act(name: "Choir")]
        context.insert(concert)
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Concert>()) == 0)

        concert.acts.append(Act(name: "Orchestra"))
        try context.save()
        concert.acts.append(contentsOf: [Act(name: "Soloist"), Act(name: "Organ")])
        #expect(throws: (any Error).self) { try context.save() }
        // The reading context held while its models' relationships are read, as in Core Data.
        let reader = ModelContext(container)
        let stored = try reader.fetch(FetchDescriptor<Concert>())
        #expect(stored.map { $0.acts.count } == [2])
    }
}
