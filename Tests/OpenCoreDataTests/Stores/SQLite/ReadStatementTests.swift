import Foundation
import Testing

@testable import OpenCoreData

/// The SQLite store keeps a read's prepared statement for the next fetch of the same text: what
/// a user notices is only that fetches repeat correctly, whatever the last one did with it.
@Suite struct ReadStatementTests {
    private func query(_ stack: TestStack, _ predicate: NSPredicate? = nil) -> StoreQuery {
        StoreQuery(
            entity: stack.coordinator.managedObjectModel.entitiesByName["TSPItem"]!, predicate: predicate, sortDescriptors: [],
            fetchLimit: 0, fetchOffset: 0, includesSubentities: true, includesPropertyValues: true)
    }

    private func names(_ stack: TestStack, _ predicate: NSPredicate? = nil) throws -> [String] {
        let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
        request.predicate = predicate
        return try stack.context.performAndWait {
            try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
        }
    }

    /// A read abandoned after its first chunk (its reader threw) leaves the statement neither
    /// mid-step nor holding the reader connection's snapshot: the same fetch then reads every
    /// row, a row saved in between included.
    @Test func aFetchAfterAnAbandonedReadOfTheSameTextReadsEveryRow() throws {
        struct Abandoned: Error {}
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(10_000)
        let store = stack.store as! SQLiteStore
        var chunks = 0
        #expect(throws: Abandoned.self) {
            try store.fetchRows(query(stack)) { _ in
                chunks += 1
                throw Abandoned()
            }
        }
        #expect(chunks == 1)
        try stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            item.setValue("Saved after", forKey: "name")
            try stack.context.save()
            stack.context.reset()
        }
        var rows = 0
        try store.fetchRows(query(stack)) { chunk in rows += chunk.count }
        #expect(rows == 10_001)
        #expect(try names(stack).contains("Saved after"))
    }

    /// The same predicate with other values, and a list longer than a kept statement binds:
    /// each fetch answers for its own values.
    @Test func eachRepeatOfAFetchAnswersForItsOwnValues() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.insertItems(100)
        for index in [3, 7, 3] {
            #expect(try names(stack, NSPredicate(format: "name == %@", "Item \(index)")) == ["Item \(index)"])
        }
        let many = (1...40).map { "Item \($0)" }
        for _ in 0..<2 {
            #expect(try Set(names(stack, NSPredicate(format: "name IN %@", many))) == Set(many))
            #expect(try names(stack, NSPredicate(format: "name IN %@", Array(many.prefix(2)))).count == 2)
        }
        let counted = try stack.context.performAndWait {
            try [5, 50].map { limit in
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.predicate = NSPredicate(format: "done == NO")
                request.fetchLimit = limit
                return try stack.context.count(for: request)
            }
        }
        #expect(counted == [5, 50])
    }
}
