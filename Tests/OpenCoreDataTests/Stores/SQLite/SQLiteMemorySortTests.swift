import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// A fetch of every row sorted by numbers, dates or to-one keys is ordered in memory
/// (`SQLiteMemorySort`), and must come out exactly as SQLite's ORDER BY orders the same rows,
/// which a fetch limit still asks for.
@Suite struct SQLiteMemorySortTests {
    /// Samples with a double, an integer, a date and a group whose own rank sorts them too.
    static func model() -> NSManagedObjectModel {
        let sample = TestModels.entity("Sample")
        let group = TestModels.entity("Group")
        let samplesGroup = TestModels.relationship("group", to: group, toMany: false)
        let groupSamples = TestModels.relationship("samples", to: sample, toMany: true)
        samplesGroup.inverseRelationship = groupSamples
        groupSamples.inverseRelationship = samplesGroup
        sample.properties = [
            TestModels.attribute("score", .doubleAttributeType), TestModels.attribute("rank", .integer64AttributeType),
            TestModels.attribute("when", .dateAttributeType), samplesGroup,
        ]
        group.properties = [TestModels.attribute("rank", .integer64AttributeType), groupSamples]
        let model = NSManagedObjectModel()
        model.entities = [sample, group]
        return model
    }

    static let scores: [Double?] = [nil, -1.5, -0.0, 0.0, 2.25, -1e300, 1e300, 7, 7, nil, 0.5, -.infinity, .infinity]
    static let ranks: [Int64?] = [3, nil, -3, 0, 3, Int64(1) << 53, -(Int64(1) << 53), 42, nil, 1]

    /// Samples whose values repeat in different cycles, so that every key has ties and the
    /// descriptors after it decide.
    private func insertSamples(_ context: NSManagedObjectContext, count: Int = 150) {
        let groups = (0..<4).map { index in
            let group = NSEntityDescription.insertNewObject(forEntityName: "Group", into: context)
            group.setValue(index == 3 ? nil : Int64(2 - index), forKey: "rank")
            return group
        }
        for index in 0..<count {
            let sample = NSEntityDescription.insertNewObject(forEntityName: "Sample", into: context)
            sample.setValue(Self.scores[index % Self.scores.count], forKey: "score")
            sample.setValue(Self.ranks[index % Self.ranks.count], forKey: "rank")
            sample.setValue(index % 11 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double((index * 37) % 17) - 8), forKey: "when")
            sample.setValue(index % 5 == 4 ? nil : groups[index % 4], forKey: "group")
        }
    }

    private func fetch(
        _ context: NSManagedObjectContext, _ descriptors: [NSSortDescriptor], limit: Int = 0
    ) throws -> (objects: [NSManagedObjectID], ids: [NSManagedObjectID]) {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Sample")
        request.sortDescriptors = descriptors
        request.fetchLimit = limit
        let objects = try context.fetch(request).map(\.objectID)
        let idRequest = NSFetchRequest<NSManagedObjectID>(entityName: "Sample")
        idRequest.sortDescriptors = descriptors
        idRequest.fetchLimit = limit
        idRequest.resultType = .managedObjectIDResultType
        return (objects, try context.fetch(idRequest))
    }

    /// Sort orders as key and ascending pairs (sort descriptors are not `Sendable` test arguments).
    static let orders: [[Pair]] = [
        [Pair("score", true)], [Pair("score", false)], [Pair("rank", true)], [Pair("when", false)], [Pair("group.rank", true)],
        [Pair("rank", false), Pair("score", true)],
        [Pair("group.rank", false), Pair("when", true), Pair("score", false)],
    ]

    struct Pair: Sendable, CustomTestStringConvertible {
        let key: String
        let ascending: Bool
        init(_ key: String, _ ascending: Bool) { (self.key, self.ascending) = (key, ascending) }
        var testDescription: String { "\(key) \(ascending ? "ASC" : "DESC")" }
    }

    @Test(arguments: orders)
    func memoryOrderIsSQLOrder(_ order: [Pair]) throws {
        let descriptors = order.map { NSSortDescriptor(key: $0.key, ascending: $0.ascending) }
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Self.model(), directory: directory)
        let recorder = StatementRecorder(stack.store)
        try stack.context.performAndWait {
            insertSamples(stack.context)
            try stack.context.save()
            stack.context.reset()
            recorder.reset()
            let inMemory = try fetch(stack.context, descriptors)
            #expect(recorder.selects.count == 2)
            #expect(recorder.selects.allSatisfy { !$0.contains("ORDER BY") }, "\(recorder.selects)")
            recorder.reset()
            let inSQL = try fetch(stack.context, descriptors, limit: 1_000)
            #expect(recorder.selects.allSatisfy { $0.contains("ORDER BY") }, "\(recorder.selects)")
            #expect(inMemory.objects.count == 150)
            #expect(inMemory.objects == inSQL.objects)
            #expect(inMemory.ids == inSQL.ids)
            #expect(inMemory.objects == inMemory.ids)
            // Both really sorted: SQL's order seen by the in-memory comparison of the objects.
            let objects = try inMemory.objects.map { try stack.context.existingObject(with: $0) }
            for (earlier, later) in zip(objects, objects.dropFirst()) {
                let order = descriptors.lazy.map { $0.compare(earlier, to: later) }.first { $0 != .orderedSame } ?? .orderedSame
                #expect(order != .orderedDescending)
                if order == .orderedSame { #expect(earlier.objectID.primaryKey < later.objectID.primaryKey) }
            }
        }
    }

    /// Values a foreign writer left that a number cannot stand for (text in a double column,
    /// integers beyond 2^53 that differ by one): the fetch sorts them as SQLite does.
    @Test func valuesOnlySQLiteCanOrderFallBackToSQL() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Self.model(), directory: directory)
        try stack.context.performAndWait {
            insertSamples(stack.context, count: 20)
            try stack.context.save()
        }
        let queue = try DatabaseQueue(path: stack.url.path)
        let big = Int64(1) << 60
        try queue.write { db in
            try db.execute(sql: "UPDATE ZSAMPLE SET ZSCORE = 'text' WHERE Z_PK = 3")
            try db.execute(sql: "UPDATE ZSAMPLE SET ZRANK = ? WHERE Z_PK = 4", arguments: [big])
            try db.execute(sql: "UPDATE ZSAMPLE SET ZRANK = ? WHERE Z_PK = 5", arguments: [big + 1])
        }
        try queue.close()
        try stack.context.performAndWait {
            for descriptors in [[NSSortDescriptor(key: "score", ascending: true)], [NSSortDescriptor(key: "rank", ascending: false)]] {
                let unlimited = try fetch(stack.context, descriptors)
                let limited = try fetch(stack.context, descriptors, limit: 1_000)
                #expect(unlimited.objects == limited.objects)
                #expect(unlimited.ids == limited.ids)
            }
            let byRank = try fetch(stack.context, [NSSortDescriptor(key: "rank", ascending: false)]).ids
            #expect(byRank.prefix(2).map(\.primaryKey) == [5, 4], "2^60 + 1 before 2^60, though a Double holds them as one")
            let byScore = try fetch(stack.context, [NSSortDescriptor(key: "score", ascending: true)]).ids
            #expect(byScore.last?.primaryKey == 3, "text after every number")
        }
    }

    @Test func encodingOrdersAsNumbers() {
        let values: [Double] = [-.infinity, -1e300, -2, -1.5, -.leastNonzeroMagnitude, 0, .leastNonzeroMagnitude, 0.5, 1, 1e300, .infinity]
        let encoded = values.map(SQLiteMemorySort.encode)
        #expect(encoded == encoded.sorted())
        #expect(Set(encoded).count == values.count)
        #expect(SQLiteMemorySort.encode(-0.0) == SQLiteMemorySort.encode(0.0))
        #expect(encoded.allSatisfy { $0 != 0 }, "0 is NULL's")
    }
}
