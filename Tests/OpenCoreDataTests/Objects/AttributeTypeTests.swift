import Testing
@testable import OpenCoreData

/// Every attribute type a store holds survives a save and a fresh coordinator.
@Suite struct AttributeTypeTests {
    @Test func everyStoredTypeRoundTrips() throws {
        ValueTransformerRegistry.register(
            .init(
                encode: { value in try? JSONEncoder().encode(value as? [String] ?? []) },
                decode: { data in try? JSONDecoder().decode([String].self, from: data) }),
            forName: "StringListTransformer")
        let tags = TestModels.attribute("tags", .transformableAttributeType)
        tags.valueTransformerName = "StringListTransformer"
        let blob = TestModels.attribute("blob", .binaryDataAttributeType)
        blob.allowsExternalBinaryDataStorage = true
        let entity = TestModels.entity("Everything", [
            TestModels.attribute("i16", .integer16AttributeType), TestModels.attribute("i32", .integer32AttributeType),
            TestModels.attribute("i64", .integer64AttributeType), TestModels.attribute("dec", .decimalAttributeType),
            TestModels.attribute("dbl", .doubleAttributeType), TestModels.attribute("flt", .floatAttributeType),
            TestModels.attribute("str", .stringAttributeType), TestModels.attribute("flag", .booleanAttributeType),
            TestModels.attribute("when", .dateAttributeType), TestModels.attribute("bytes", .binaryDataAttributeType),
            TestModels.attribute("uuid", .UUIDAttributeType), TestModels.attribute("link", .URIAttributeType), tags, blob,
        ])
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory)
        let id = UUID()
        let when = Date(timeIntervalSinceReferenceDate: 123_456.789)
        try stack.context.performAndWait {
            let o = NSEntityDescription.insertNewObject(forEntityName: "Everything", into: stack.context)
            o.setValue(Int16(-7), forKey: "i16")
            o.setValue(Int32(70_000), forKey: "i32")
            o.setValue(Int64.max, forKey: "i64")
            o.setValue(Decimal(string: "10.11"), forKey: "dec")
            o.setValue(2.5, forKey: "dbl")
            o.setValue(Float(1.25), forKey: "flt")
            o.setValue("héllo 'quoted'; DROP TABLE", forKey: "str")
            o.setValue(true, forKey: "flag")
            o.setValue(when, forKey: "when")
            o.setValue(Data([0, 1, 2, 255]), forKey: "bytes")
            o.setValue(id, forKey: "uuid")
            o.setValue(URL(string: "https://example.com/a?b=c")!, forKey: "link")
            o.setValue(["a", "b"], forKey: "tags")
            o.setValue(Data([9, 9]), forKey: "blob")
            try stack.context.save()
        }
        let again = try stack.reopened()
        try again.context.performAndWait {
            let o = try #require(try again.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Everything")).first)
            #expect(o.value(forKey: "i16") as? Int16 == -7)
            #expect(o.value(forKey: "i32") as? Int == 70_000)
            #expect(o.value(forKey: "i64") as? Int64 == Int64.max)
            #expect((o.value(forKey: "dec") as? NSDecimalNumber)?.decimalValue == Decimal(string: "10.11"))
            #expect(o.value(forKey: "dbl") as? Double == 2.5)
            #expect(o.value(forKey: "flt") as? Float == 1.25)
            #expect(o.value(forKey: "str") as? String == "héllo 'quoted'; DROP TABLE")
            #expect(o.value(forKey: "flag") as? Bool == true)
            #expect(o.value(forKey: "when") as? Date == when)
            #expect(o.value(forKey: "bytes") as? Data == Data([0, 1, 2, 255]))
            #expect(o.value(forKey: "uuid") as? UUID == id)
            #expect(o.value(forKey: "link") as? URL == URL(string: "https://example.com/a?b=c"))
            #expect(o.value(forKey: "tags") as? [String] == ["a", "b"])
            #expect(o.value(forKey: "blob") as? Data == Data([9, 9]))
        }
        let raw = try GRDBQueue.make(stack.url)
        let row = try raw.read { db in try Row.fetchOne(db, sql: "SELECT ZUUID, ZWHEN, ZBLOB FROM ZEVERYTHING") }
        try raw.close()
        #expect((row?["ZUUID"] as Data?)?.count == 16)
        #expect(row?["ZWHEN"] as Double? == 123_456.789)
        #expect(row?["ZBLOB"] as Data? == Data([1, 9, 9]))
    }

    /// A stored 0 (and the reference date, 0 seconds) reads back as a value, a NULL as nil: the
    /// store asks a column's type only when its number reads as 0.
    @Test func zeroAndNilStayApart() throws {
        let entity = TestModels.entity("Numbers", [
            TestModels.attribute("i64", .integer64AttributeType), TestModels.attribute("dbl", .doubleAttributeType),
            TestModels.attribute("flag", .booleanAttributeType), TestModels.attribute("when", .dateAttributeType),
            TestModels.attribute("order", .integer32AttributeType),
        ])
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory)
        try stack.context.performAndWait {
            for (order, zero) in [(1, true), (2, false)] {
                let object = NSEntityDescription.insertNewObject(forEntityName: "Numbers", into: stack.context)
                object.setValue(order, forKey: "order")
                guard zero else { continue }
                object.setValue(Int64(0), forKey: "i64")
                object.setValue(0.0, forKey: "dbl")
                object.setValue(false, forKey: "flag")
                object.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "when")
            }
            try stack.context.save()
        }
        let again = try stack.reopened()
        try again.context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Numbers")
            request.sortDescriptors = [NSSortDescriptor(key: "order", ascending: true)]
            request.returnsObjectsAsFaults = false
            let objects = try again.context.fetch(request)
            #expect(objects.count == 2)
            #expect(objects[0].value(forKey: "i64") as? Int64 == 0)
            #expect(objects[0].value(forKey: "dbl") as? Double == 0)
            #expect(objects[0].value(forKey: "flag") as? Bool == false)
            #expect(objects[0].value(forKey: "when") as? Date == Date(timeIntervalSinceReferenceDate: 0))
            for key in ["i64", "dbl", "flag", "when"] { #expect(objects[1].value(forKey: key) == nil, "\(key)") }
        }
    }
}

import GRDB
