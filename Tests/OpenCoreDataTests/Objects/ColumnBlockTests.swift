import Foundation
import Testing
@testable import OpenCoreData

/// Fetched rows kept column by column give back exactly the values written, whatever mix of
/// kinds, NULLs and sizes a column sees.
@Suite struct ColumnBlockTests {
    /// Builds rows of `width` from `values(row, column)`.
    private func rows(_ count: Int, width: Int, builder: SlotRowBuilder = SlotRowBuilder(), _ values: (Int, Int) -> SlotValue) -> [SlotRow] {
        (0..<count).map { row in
            builder.beginRow(width: width)
            for column in 0..<width { builder.append(values(row, column)) }
            return builder.endRow()
        }
    }

    /// A value as text, so that rows compare with `==` whatever their payload.
    private func describe(_ value: SlotValue) -> String {
        switch value {
        case .unloaded: "unloaded"
        case .null: "null"
        case .int(let number): "int \(number)"
        case .bool(let flag): "bool \(flag)"
        case .double(let number): "double \(number)"
        case .string(let string): "string \(string)"
        case .date(let date): "date \(date.timeIntervalSinceReferenceDate)"
        case .data(let data): "data \(Array(data))"
        case .reference(let reference): "reference \(reference.entityNumber) \(reference.primaryKey)"
        case .uuid(let uuid): "uuid \(uuid)"
        default: "other"
        }
    }

    @Test func everyKindReadsBackAsWrittenWithNullsBetween() {
        let date = Date(timeIntervalSinceReferenceDate: 812_345_678.25)
        let samples: [SlotValue] = [
            .int(7), .bool(true), .double(2.5), .date(date), .string("Item 12"),
            .reference(ObjectReference(entityNumber: 3, primaryKey: 9_000_000_000)), .data(Data([1, 2, 3])),
            .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), .unloaded,
        ]
        // Row 0 NULL everywhere, then each column's sample on odd rows and NULL on even ones.
        let built = rows(300, width: samples.count) { row, column in
            if column == samples.count - 1 { return .unloaded }
            return row % 2 == 1 ? samples[column] : .null
        }
        for (index, row) in built.enumerated() {
            let expected = samples.indices.map { column in
                column == samples.count - 1 ? "unloaded" : index % 2 == 1 ? describe(samples[column]) : "null"
            }
            #expect(row.map(describe) == expected, "row \(index)")
            #expect(row.presence(at: 0) == (index % 2 == 1 ? .value : .null))
        }
    }

    @Test func aColumnTakesValuesOfAnotherKindOrLargerSizeLaterInTheBlock() {
        // Integers from one byte to eight, then a string and an invalid value in the same column.
        let values: [SlotValue] = [
            .int(1), .null, .int(300), .int(70_000), .int(Int64.min), .string("text"), .invalid(AnyBox(42)), .int(-2),
        ]
        let built = rows(values.count, width: 1) { row, _ in values[row] }
        #expect(built.map { describe($0[0]) } == values.map(describe))
        #expect(built[6].presence(at: 0) == .invalid)
        #expect(built[1].presence(at: 0) == .null)
    }

    /// The store's read appends integers, doubles, dates and strings without a `SlotValue`
    /// (`appendInteger` and its siblings): whatever the column's form by then, the rows read back
    /// as the same values appended as `SlotValue`s.
    @Test func typedAppendsKeepWhatSlotValueAppendsKeep() {
        let date = Date(timeIntervalSinceReferenceDate: 812_345_678.25)
        // Per column: integers that widen, then other kinds; each kind first into a NULL column;
        // a date after doubles and a double after dates.
        let columns: [[SlotValue]] = [
            [.null, .int(1), .int(300), .int(70_000), .int(Int64.max), .string("text"), .int(-2), .double(0.5)],
            [.string("a"), .null, .string("Item 12"), .int(4), .string("b"), .date(date), .string(""), .null],
            [.double(2.5), .double(-1), .date(date), .double(3), .null, .int(1), .double(.infinity), .string("c")],
            [.date(date), .null, .date(date.addingTimeInterval(1)), .double(7), .date(date), .int(9), .null, .date(date)],
            // Integers that fit the column's size as it is, negative ones and the extremes among them.
            [.int(1), .int(-2), .int(100), .int(-100), .int(Int64.max), .int(Int64.min), .int(5), .null],
        ]
        let count = columns[0].count
        let plain = rows(count, width: columns.count) { row, column in columns[column][row] }
        let builder = SlotRowBuilder()
        let typed = (0..<count).map { row in
            builder.beginRow(width: columns.count)
            for column in columns.indices {
                switch columns[column][row] {
                case .int(let number): builder.appendInteger(number)
                case .double(let number): builder.appendDouble(number, isDate: false)
                case .date(let date): builder.appendDouble(date.timeIntervalSinceReferenceDate, isDate: true)
                case .string(let string): builder.appendString(string)
                case let value: builder.append(value)
                }
            }
            return builder.endRow()
        }
        for row in 0..<count {
            let expected = columns.map { describe($0[row]) }
            #expect(plain[row].map(describe) == expected, "row \(row)")
            #expect(typed[row].map(describe) == expected, "row \(row)")
        }
    }

    @Test func anUnloadedColumnTakesAnotherValue() {
        let built = rows(5, width: 1) { row, _ in row == 3 ? .int(5) : .unloaded }
        #expect(built.map { describe($0[0]) } == ["unloaded", "unloaded", "unloaded", "int 5", "unloaded"])
    }

    @Test func rowsLetGoOfTheirValuesWithTheLastRow() {
        final class Payload {}
        weak var watched: Payload?
        var kept: [SlotRow] = []
        do {
            let payload = Payload()
            watched = payload
            let long = String(repeating: "long text ", count: 10)
            kept = rows(1_000, width: 2) { row, column in column == 0 ? .string(long + "\(row)") : .object(AnyBox(payload)) }
        }
        #expect(watched != nil)
        #expect(describe(kept[999][0]) == "string " + String(repeating: "long text ", count: 10) + "999")
        kept.removeAll()
        #expect(watched == nil)
    }

    @Test func rowsOfTwoWidthsAlternatingKeepTheirOwnValues() {
        let builder = SlotRowBuilder()
        var built: [SlotRow] = []
        for row in 0..<500 {
            let width = row % 2 == 0 ? 2 : 3
            built += rows(1, width: width, builder: builder) { _, column in .int(Int64(row * 10 + column)) }
        }
        for (row, values) in built.enumerated() {
            let width = row % 2 == 0 ? 2 : 3
            #expect(values.map(describe) == (0..<width).map { "int \(row * 10 + $0)" })
        }
    }

    @Test func rowsBuiltAfterASealLeaveEarlierRowsUnchanged() {
        let builder = SlotRowBuilder()
        let first = rows(10, width: 1, builder: builder) { row, _ in .int(Int64(row)) }
        builder.seal()
        // A later row that would widen or change the form of the first rows' column.
        let second = rows(10, width: 1, builder: builder) { row, _ in row == 0 ? .string("after") : .int(Int64.max) }
        #expect(first.map { describe($0[0]) } == (0..<10).map { "int \($0)" })
        #expect(describe(second[0][0]) == "string after")
        #expect(describe(second[9][0]) == "int \(Int64.max)")
    }

    @Test func writingToABlockRowCopiesItOutAndLeavesItsNeighbours() {
        var built = rows(3, width: 2) { row, column in column == 0 ? .string("name \(row)") : .double(Double(row)) }
        var snapshot = built[1]
        built[1][1] = .string("now text")
        #expect(built.map { describe($0[1]) } == ["double 0.0", "string now text", "double 2.0"])
        #expect(describe(snapshot[1]) == "double 1.0")
        snapshot[0] = .null
        #expect(describe(built[1][0]) == "string name 1")
        #expect(describe(snapshot[0]) == "null")
    }

    @Test func anEmptyRowBetweenOthers() {
        let builder = SlotRowBuilder()
        let before = rows(2, width: 1, builder: builder) { row, _ in .int(Int64(row)) }
        builder.beginRow(width: 0)
        let empty = builder.endRow()
        let after = rows(2, width: 1, builder: builder) { row, _ in .int(Int64(row + 2)) }
        #expect(empty.isEmpty)
        #expect((before + after).map { describe($0[0]) } == ["int 0", "int 1", "int 2", "int 3"])
    }
}
