import Foundation
import Testing
@testable import OpenCoreData

/// Rows that share one storage behave as separate values: writing to one never shows in another.
@Suite struct SlotRowTests {
    private func string(_ value: SlotValue) -> String? {
        if case .string(let string) = value { return string }
        return nil
    }

    @Test func rowsBuiltIntoOneStorageAreIndependentValues() {
        let builder = SlotRowBuilder()
        var rows: [SlotRow] = []
        for index in 0..<3 {
            builder.beginRow(width: 2)
            builder.append(.string("name \(index)"))
            builder.append(.int(Int64(index)))
            rows.append(builder.endRow())
        }
        var edited = rows[1]
        edited[0] = .string("edited")
        #expect(string(edited[0]) == "edited")
        #expect(rows.map { string($0[0]) } == ["name 0", "name 1", "name 2"])
        #expect(rows.map(\.count) == [2, 2, 2])
    }

    @Test func rowsOutgrowingAStorageContinueInANewOne() {
        let builder = SlotRowBuilder()
        let width = 7
        let rows = (0..<(SlotRowBuilder.blockCapacity * 3)).map { index in
            builder.beginRow(width: width)
            for column in 0..<width { builder.append(.int(Int64(index * width + column))) }
            return builder.endRow()
        }
        for (index, row) in rows.enumerated() {
            #expect(row.count == width)
            guard case .int(let first) = row[0], case .int(let last) = row[width - 1] else {
                Issue.record("row \(index) lost its values")
                return
            }
            #expect(first == Int64(index * width))
            #expect(last == Int64(index * width + width - 1))
        }
    }

    @Test func editingOneFetchedObjectLeavesItsNeighboursAndItsSnapshotAlone() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            for index in 0..<50 {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
                item.setValue("Item \(index)", forKey: "name")
            }
            try stack.context.save()
        }
        let reader = try stack.reopened()
        try reader.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.returnsObjectsAsFaults = false
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let items = try reader.context.fetch(request)
            #expect(items.count == 50)
            let edited = items[10]
            let before = edited.value(forKey: "name") as? String
            edited.setValue("changed", forKey: "name")
            #expect(edited.changedValues().keys.sorted() == ["name"])
            #expect(edited.committedValues(forKeys: ["name"])["name"] as? String == before)
            #expect(items[9].value(forKey: "name") as? String != "changed")
            #expect(items[11].value(forKey: "name") as? String != "changed")
            #expect(items.filter { $0.value(forKey: "name") as? String == "changed" }.count == 1)
            try reader.context.save()
        }
        let check = try stack.reopened()
        let names = try check.context.performAndWait {
            try check.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "TSPItem")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names.filter { $0 == "changed" }.count == 1)
        #expect(names.count == 50)
    }

    @Test func aRowMadeFromAnArrayKeepsItsValuesAfterTheArrayIsGone() {
        final class Payload {}
        weak var watched: Payload?
        var row: SlotRow?
        do {
            let payload = Payload()
            watched = payload
            let values: [SlotValue] = [.object(AnyBox(payload)), .string(String(repeating: "long text ", count: 10))]
            row = SlotRow(values)
        }
        // The array released its own copies: the row's must still hold the box.
        #expect(watched != nil)
        #expect(row.map { string($0[1]) } == String(repeating: "long text ", count: 10))
        row = nil
        #expect(watched == nil)
    }
}
