import Foundation
import GRDB
import OpenCoreData
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Codable structs, enums and arrays on models: stored in Apple's shapes, read back equal.
@Suite struct ValueTypeTests {
    let folder = TemporaryDirectory()
    let lisbon = Address(
        street: "Rua Augusta 1", city: "Lisbon", postcode: nil, location: Location(latitude: 38.71, longitude: -9.14), kind: .boat)

    func container() throws -> ModelContainer {
        try ModelContainer(for: Hotel.self, configurations: ModelConfiguration(url: folder.file("hotels.store")))
    }

    @Test func aCodableStructIsACompositeAttributeAndEnumsTheirRawType() throws {
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [Hotel.self]))
        let hotel = try #require(model.entitiesByName["Hotel"])
        let address = try #require(hotel.attributesByName["address"] as? NSCompositeAttributeDescription)
        #expect(address.elements.map(\.name) == ["street", "city", "postcode", "location", "kind"])
        #expect(address.elements.map(\.attributeType) == [.stringAttributeType, .stringAttributeType, .stringAttributeType, .compositeAttributeType, .stringAttributeType])
        #expect(address.elements.map(\.isOptional) == [false, false, true, false, false])
        let location = try #require(address.elements[3] as? NSCompositeAttributeDescription)
        #expect(location.elements.map(\.name) == ["latitude", "longitude"] && location.elements.allSatisfy { $0.attributeType == .doubleAttributeType })
        #expect(hotel.attributesByName["transport"]?.attributeType == .stringAttributeType)
        #expect(hotel.attributesByName["transport"]?.defaultValue as? String == "train")
        #expect(hotel.attributesByName["priority"]?.attributeType == .integer64AttributeType)
        #expect(hotel.attributesByName["priority"]?.isOptional == true)
        #expect(hotel.attributesByName["tags"]?.attributeType == .binaryDataAttributeType)
        #expect(hotel.attributesByName["checkIn"]?.isOptional == true)
    }

    @Test func valuesComeBackEqualFromANewContainer() throws {
        do {
            let context = ModelContext(try container())
            let hotel = Hotel(name: "Avenida", address: lisbon)
            hotel.priority = .high
            hotel.tags = ["pool", "view"]
            hotel.rooms = [Room(number: 101, beds: 2)]
            context.insert(hotel)
            try context.save()
            hotel.transport = .plane
            hotel.checkIn = lisbon
            try context.save()
        }
        let context = ModelContext(try container())
        let hotel = try #require(try context.fetch(FetchDescriptor<Hotel>()).first)
        #expect(hotel.address == lisbon && hotel.checkIn == lisbon)
        #expect(hotel.transport == .plane && hotel.priority == .high)
        #expect(hotel.tags == ["pool", "view"] && hotel.rooms == [Room(number: 101, beds: 2)])
        hotel.priority = nil
        hotel.checkIn = nil
        try context.save()
        let again = try #require(try ModelContext(try container()).fetch(FetchDescriptor<Hotel>()).first)
        #expect(again.priority == nil && again.checkIn == nil && again.address == lisbon)
    }

    @Test func theFileHasOneColumnPerLeafAndRawValues() throws {
        let context = ModelContext(try container())
        context.insert(Hotel(name: "Avenida", address: lisbon))
        try context.save()
        let queue = try DatabaseQueue(path: folder.file("hotels.store").path)
        defer { try? queue.close() }
        try queue.read { db in
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(ZHOTEL)").map { $0["name"] as String }
            for column in ["ZSTREET", "ZCITY", "ZPOSTCODE", "ZLATITUDE", "ZLONGITUDE", "ZKIND", "ZTRANSPORT", "ZPRIORITY", "ZTAGS"] {
                #expect(columns.contains(column), "\(column) in \(columns)")
            }
            let row = try #require(try Row.fetchOne(db, sql: "SELECT ZCITY, ZLATITUDE, ZKIND, ZTRANSPORT FROM ZHOTEL"))
            #expect(row["ZCITY"] as String == "Lisbon" && row["ZLATITUDE"] as Double == 38.71)
            #expect(row["ZKIND"] as String == "boat" && row["ZTRANSPORT"] as String == "train")
        }
    }

    @Test func enumsCompareByTheirRawValuesInPredicates() throws {
        let context = ModelContext(try container())
        let hotel = Hotel(name: "Avenida", address: lisbon)
        hotel.priority = .low
        context.insert(hotel)
        context.insert(Hotel(name: "Other", address: lisbon))
        try context.save()
        let low = Priority.low
        let train = Transport.train
        let selected = try context.fetch(FetchDescriptor<Hotel>(predicate: #Predicate { $0.priority == low && $0.transport == train }))
        #expect(selected.map(\.name) == ["Avenida"])
    }

    @Test func keyPathsIntoACompositeFilterAndSortInTheStore() throws {
        let context = ModelContext(try container())
        var porto = lisbon
        porto.city = "Porto"
        porto.location.latitude = 41.15
        context.insert(Hotel(name: "Avenida", address: lisbon))
        context.insert(Hotel(name: "Ribeira", address: porto))
        try context.save()
        let city = "Porto"
        let inPorto = try context.fetch(FetchDescriptor<Hotel>(predicate: #Predicate { $0.address.city == city }))
        #expect(inPorto.map(\.name) == ["Ribeira"])
        let north = try context.fetch(FetchDescriptor<Hotel>(predicate: #Predicate { $0.address.location.latitude > 40 }))
        #expect(north.map(\.name) == ["Ribeira"])
        let byCity = try context.fetch(FetchDescriptor<Hotel>(sortBy: [SortDescriptor(\.address.city, order: .reverse)]))
        #expect(byCity.map(\.name) == ["Ribeira", "Avenida"])
    }
}
