import Foundation

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

// Value types as SwiftData stores them: a Codable struct (a composite attribute, one column per
// leaf, a nested struct nested), enums by raw value, arrays whole.

enum Transport: String, Codable, CaseIterable {
    case train, plane, boat
}

enum Priority: Int, Codable {
    case low = 1
    case high = 2
}

struct Location: Codable, Hashable {
    var latitude: Double
    var longitude: Double
}

struct Address: Codable, Hashable {
    var street: String
    var city: String
    var postcode: String?
    var location: Location
    var kind: Transport
}

struct Room: Codable, Hashable {
    var number: Int
    var beds: Int
}

@Model final class Hotel {
    var name: String
    var address: Address
    var transport: Transport = Transport.train
    var priority: Priority?
    var tags: [String] = []
    var rooms: [Room] = []
    var checkIn: Address?

    init(name: String, address: Address) {
        self.name = name
        self.address = address
    }
}
