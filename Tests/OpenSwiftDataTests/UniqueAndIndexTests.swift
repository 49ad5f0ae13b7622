import Foundation
import GRDB
import OpenCoreData
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// `#Unique` makes a compound uniqueness constraint (an upsert at save), `#Index` store indexes.
@Suite struct UniqueAndIndexTests {
    let folder = TemporaryDirectory()

    @Test func theMacrosBecomeTheEntitysConstraintAndIndexes() throws {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Person.self]))
        let person = try #require(model.entitiesByName["Person"])
        #expect(person.uniquenessConstraints as? [[String]] == [["givenName", "familyName"]])
        #expect(person.indexes.map { $0.elements.map(\.property?.name) } == [["familyName"], ["givenName", "familyName"]])
    }

    @Test func aCompoundUniqueValueUpsertsAndTheStoreHasTheIndexes() throws {
        let url = folder.file("people.store")
        let container = try ModelContainer(for: Person.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Person(givenName: "Ana", familyName: "Lima", age: 30))
        try context.save()
        context.insert(Person(givenName: "Ana", familyName: "Lima", age: 31))
        context.insert(Person(givenName: "Ana", familyName: "Costa", age: 40))
        try context.save()

        let check = ModelContext(try ModelContainer(for: Person.self, configurations: ModelConfiguration(url: url)))
        let people = try check.fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.familyName)]))
        #expect(people.map(\.familyName) == ["Costa", "Lima"] && people.map(\.age) == [40, 31])

        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        let indexed = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZPERSON' AND sql IS NOT NULL")
        }
        #expect(indexed.contains { $0.contains("ZFAMILYNAME") && !$0.contains("ZGIVENNAME") })
        #expect(indexed.contains { $0.contains("UNIQUE") && $0.contains("ZGIVENNAME") && $0.contains("ZFAMILYNAME") })
    }
}
