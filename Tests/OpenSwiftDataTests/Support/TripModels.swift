import Foundation

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

// Models written as an app writes them for SwiftData: trips with their stops and a traveller.

@Model final class Trip {
    @Attribute(.unique) var name: String
    var startDate: Date
    var budget: Double = 0
    var nights: Int = 1
    var isBooked = false
    var notes: String?
    var code: UUID = UUID()
    var website: URL?
    var photo: Data?
    var price: Decimal = 0
    var rating: Int16 = 0
    @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
    var traveller: Traveller?

    init(name: String, startDate: Date = Date(timeIntervalSince1970: 0)) {
        self.name = name
        self.startDate = startDate
    }
}

@Model final class Stop {
    var place: String
    var order: Int
    var trip: Trip?

    init(place: String, order: Int) {
        self.place = place
        self.order = order
    }
}

@Model final class Traveller {
    @Attribute(.preserveValueOnDeletion) var name: String
    var trips: [Trip] = []
    @Transient var greeting = "hello"

    init(name: String) { self.name = name }
}
