import Foundation
import Testing
@testable import OpenCoreData

/// The in-place read of an `Any` agrees with the runtime's cast for every type it is used for,
/// so a different existential layout fails here rather than misreading values.
@Suite struct ExistentialPayloadTests {
    private func read<T>(_ value: Any?, as type: T.Type) -> T?? {
        ExistentialPayload.withPayload(of: value) { dynamicType, payload in
            dynamicType == T.self ? payload.load(as: T.self) : nil
        }
    }

    /// Whether Swift stores a `T` inside an existential's three-word buffer rather than in a box.
    private func isInline<T>(_ type: T.Type) -> Bool {
        MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.stride && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment
            && _isBitwiseTakable(T.self)
    }

    @Test func readsEachInlineTypeAsTheCastDoes() {
        let long = String(repeating: "a long string on the heap ", count: 8)
        let date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        #expect(read("Item 7", as: String.self) == "Item 7")
        #expect(read(long, as: String.self) == long)
        #expect(read(date, as: Date.self) == date)
        #expect(read(true, as: Bool.self) == true)
        #expect(read(false, as: Bool.self) == false)
        #expect(read(Int.min, as: Int.self) == Int.min)
        #expect(read(-2.5, as: Double.self) == -2.5)
        // Read in place, so each must sit in the existential's buffer.
        #expect(isInline(String.self))
        #expect(isInline(Date.self))
        #expect(isInline(Bool.self))
        #expect(isInline(Int.self))
        #expect(isInline(Double.self))
    }

    @Test func otherTypesAndNilAreNotMisread() {
        #expect(read(nil, as: String.self) == .none)
        #expect(read(NSNumber(value: 3), as: Int.self) == .some(nil))
        #expect(read(Int32(3), as: Int.self) == .some(nil))
        #expect(read(Substring("Item"), as: String.self) == .some(nil))
        #expect(read(NSString(string: "Item"), as: String.self) == .some(nil))
    }

    @Test func settingValuesThroughKVCStoresThem() throws {
        let entity = TestModels.entity("Row", [
            TestModels.attribute("name", .stringAttributeType), TestModels.attribute("when", .dateAttributeType),
            TestModels.attribute("done", .booleanAttributeType), TestModels.attribute("count", .integer64AttributeType),
            TestModels.attribute("ratio", .doubleAttributeType),
        ])
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory)
        let long = String(repeating: "ü", count: 100)
        let date = Date(timeIntervalSinceReferenceDate: 42)
        stack.context.performAndWait {
            let row = NSEntityDescription.insertNewObject(forEntityName: "Row", into: stack.context)
            row.setValue(long, forKey: "name")
            row.setValue(date, forKey: "when")
            row.setValue(true, forKey: "done")
            row.setValue(Int(-9), forKey: "count")
            row.setValue(0.25, forKey: "ratio")
            #expect(row.value(forKey: "name") as? String == long)
            #expect(row.value(forKey: "when") as? Date == date)
            #expect(row.value(forKey: "done") as? Bool == true)
            #expect(row.value(forKey: "count") as? Int == -9)
            #expect(row.value(forKey: "ratio") as? Double == 0.25)
            row.setValue(nil, forKey: "name")
            row.setValue(NSNumber(value: 5), forKey: "count")
            #expect(row.value(forKey: "name") == nil)
            #expect(row.value(forKey: "count") as? Int == 5)
        }
    }

}
