import Foundation
import Testing
@testable import OpenCoreData

/// An object that reads the store while it awakes from a fetch, as a subclass may (a count, or a
/// relationship's fault), every thousandth time.
final class StoreReadingItem: NSManagedObject {
    private(set) var itemsSeenWhileAwaking: Int?

    override func awakeFromFetch() {
        super.awakeFromFetch()
        guard let name = value(forKey: "name") as? String, name.hasSuffix("000") else { return }
        itemsSeenWhileAwaking = try? managedObjectContext?.count(for: NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
    }
}

/// A fetch longer than one chunk of the SQLite store's read (`SQLiteStore.rowsPerChunk`): the rest
/// is read on another thread while the context registers what came first.
@Suite struct ChunkedReadTests {
    /// Rows enough for two whole chunks and part of a third.
    static let rows = SQLiteStore.rowsPerChunk * 2 + 1_808

    /// A store of `rows` items, as `insertItems(_:)` writes them.
    private func filledStack(_ directory: TemporaryDirectory, model: NSManagedObjectModel = TestModels.todo()) throws -> TestStack {
        let stack = try TestStack(model: model, directory: directory)
        try stack.insertItems(Self.rows)
        return stack
    }

    @Test(arguments: [false, true])
    func everyRowComesBackInOrderWithItsValues(asFaults: Bool) throws {
        let directory = TemporaryDirectory()
        let stack = try filledStack(directory)
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.returnsObjectsAsFaults = asFaults
            let items = try stack.context.fetch(request)
            #expect(items.count == Self.rows)
            #expect(items.allSatisfy { $0.isFault == asFaults })
            let keys = items.map { $0.objectID.uriRepresentation().lastPathComponent }
            #expect(keys == (1...Self.rows).map { "p\($0)" })
            let names = items.map { $0.value(forKey: "name") as? String }
            #expect(names == (1...Self.rows).map { "Item \($0)" })
            #expect(items.map { $0.value(forKey: "done") as? Bool } == (1...Self.rows).map { $0 % 2 == 1 })
            // Uniqued: a second fetch gives back the same objects.
            let again = try stack.context.fetch(request)
            #expect(zip(items, again).allSatisfy { $0 === $1 })
        }
    }

    @Test func predicateLimitAndOffsetApplyAcrossChunks() throws {
        let directory = TemporaryDirectory()
        let stack = try filledStack(directory)
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.predicate = NSPredicate(format: "done == YES")
            request.fetchOffset = 10
            request.fetchLimit = SQLiteStore.rowsPerChunk + 5
            let names = try stack.context.fetch(request).map { $0.value(forKey: "name") as? String }
            // Done rows are the odd ones: the eleventh is row 21.
            #expect(names == (0..<request.fetchLimit).map { "Item \(21 + 2 * $0)" })
        }
    }

    @Test(arguments: [false, true])
    func objectIDsComeBackInOrder(sortedByDate: Bool) throws {
        let directory = TemporaryDirectory()
        let stack = try filledStack(directory)
        try stack.context.performAndWait {
            let request = NSFetchRequest<NSManagedObjectID>(entityName: "TSPItem")
            request.resultType = .managedObjectIDResultType
            // `createdAt` falls as the key rises: sorted by it, the keys come back reversed.
            if sortedByDate { request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)] }
            let ids = try stack.context.fetch(request)
            let keys = ids.map { $0.uriRepresentation().lastPathComponent }
            let expected = (1...Self.rows).map { "p\($0)" }
            #expect(keys == (sortedByDate ? expected.reversed() : expected))
            #expect(ids.allSatisfy { $0.entity.name == "TSPItem" && !$0.isTemporaryID })
            let objects = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem"))
            #expect(Set(objects.map(\.objectID)) == Set(ids))
        }
    }

    /// `awakeFromFetch` runs after the read, so that a store read inside it cannot meet the
    /// connection the fetch is still reading on.
    @Test func awakeFromFetchMayReadTheStore() throws {
        let directory = TemporaryDirectory()
        let model = TestModels.todo()
        model.entities[0].managedObjectClassName = String(reflecting: StoreReadingItem.self)
        let stack = try filledStack(directory, model: model)
        try stack.context.performAndWait {
            let request = NSFetchRequest<StoreReadingItem>(entityName: "TSPItem")
            request.returnsObjectsAsFaults = false
            let items = try stack.context.fetch(request)
            #expect(items.count == Self.rows)
            let counted = items.compactMap(\.itemsSeenWhileAwaking)
            #expect(counted == Array(repeating: Self.rows, count: Self.rows / 1_000))
        }
    }
}
