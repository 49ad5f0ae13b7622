import BenchmarkSupport
import Foundation

/// The rows of the public benchmark shapes, generated from fixed seeds before anything is timed,
/// so that every way writes and reads the same values.
enum ShapeData {
    struct User {
        let id: UUID
        let firstName: String
        let surname: String
        let age: Int64
    }

    struct School {
        let id: UUID
        let name: String
        let location: String
        let type: String
    }

    struct Student {
        let id: UUID
        let firstName: String
        let surname: String
        let age: Int64
        /// Index into the schools.
        let school: Int
    }

    struct Grade {
        let id: UUID
        let subject: String
        let grade: String
        let examBoard: String
        /// Index into the students.
        let student: Int
    }

    struct Graph {
        let schools: [School]
        let students: [Student]
        let grades: [Grade]
    }

    struct Order {
        let orderID: Int64
        let customerID: String
        let employeeID: Int64
        let orderDate: Date
        let requiredDate: Date
        let shippedDate: Date?
        let shipVia: Int64
        let freight: Double
        let shipName: String
        let shipAddress: String
        let shipCity: String
        let shipRegion: String?
        let shipPostalCode: String
        let shipCountry: String
    }

    /// The first name the users fetch looks for. RealmVsSwiftData's data gave it to about 26 users
    /// in 100,000; here one in 3,846 has it.
    static let soughtName = "Jane"

    private static let firstNames = (0..<200).map { "First\($0)" }
    private static let surnames = (0..<200).map { "Surname\($0)" }

    private static func uuid(_ generator: inout SplitMix64) -> UUID {
        let high = generator.next()
        let low = generator.next()
        return withUnsafeBytes(of: (high, low)) { bytes in
            UUID(uuid: bytes.load(as: uuid_t.self))
        }
    }

    static func users(_ count: Int) -> [User] {
        var generator = SplitMix64(seed: 0x05E2_5100)
        return (0..<count).map { _ in
            let first = generator.next() % 3_846 == 0 ? soughtName : firstNames[Int(generator.next() % 200)]
            return User(
                id: uuid(&generator), firstName: first, surname: surnames[Int(generator.next() % 200)],
                age: Int64(generator.next() % 99))
        }
    }

    private static let schoolTypes = ["comprehensive", "grammar", "private", "religious"]
    private static let subjects = [
        "maths", "english", "literature", "physics", "chemistry", "biology", "history", "geography", "french", "german",
        "music", "art", "physicalEducation", "religiousStudies",
    ]
    private static let marks = ["aStar", "a", "b", "c", "d", "e", "f", "u"]
    private static let boards = ["aqa", "edexcel", "ocr"]

    /// 100 schools, `students` students spread evenly over them, two to seven grades each.
    static func graph(students count: Int) -> Graph {
        var generator = SplitMix64(seed: 0x5C40_01)
        let schools = (0..<100).map { index in
            School(
                id: uuid(&generator), name: index == 0 ? "Falconwood College" : "School \(index)",
                location: "Town \(generator.next() % 500)", type: schoolTypes[Int(generator.next() % 4)])
        }
        var students: [Student] = []
        var grades: [Grade] = []
        students.reserveCapacity(count)
        grades.reserveCapacity(count * 9 / 2)
        for index in 0..<count {
            students.append(
                Student(
                    id: uuid(&generator), firstName: firstNames[Int(generator.next() % 200)],
                    surname: surnames[Int(generator.next() % 200)], age: Int64(11 + generator.next() % 7),
                    school: index * 100 / count))
            for _ in 0..<(2 + Int(generator.next() % 6)) {
                grades.append(
                    Grade(
                        id: uuid(&generator), subject: subjects[Int(generator.next() % 14)],
                        grade: marks[Int(generator.next() % 8)], examBoard: boards[Int(generator.next() % 3)], student: index))
            }
        }
        return Graph(schools: schools, students: students, grades: grades)
    }

    /// The rows of Northwind's `Orders` table in the SQLite port Lighter's suite reads: 15,889
    /// orders over 91 customers, 9 employees and 3 shippers.
    static let orderCount = 15_889

    static func orders(_ count: Int = orderCount) -> [Order] {
        var generator = SplitMix64(seed: 0x0E0E_45)
        let cities = ["Reims", "Münster", "Rio de Janeiro", "Lyon", "Charleroi", "Bern", "Genève", "Resende", "San Cristóbal", "Graz", "México D.F.", "Köln"]
        let countries = ["France", "Germany", "Brazil", "Belgium", "Switzerland", "Venezuela", "Austria", "Mexico"]
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let customers: [String] = (0..<91).map { (index: Int) -> String in
            let letter = String(letters[index % 26])
            return letter + "CUST\(index / 26)"
        }
        let start = Date(timeIntervalSinceReferenceDate: 410_000_000)
        return (0..<count).map { index in
            let customer = Int(generator.next() % 91)
            let ordered = start.addingTimeInterval(Double(index) * 3_600 * 7 + Double(generator.next() % 3_600))
            let shippedAfter: Double = Double(1 + generator.next() % 10) * 86_400
            let shipped: Date? = generator.next() % 40 == 0 ? nil : ordered.addingTimeInterval(shippedAfter)
            let requiredAfter: Double = Double(14 + generator.next() % 15) * 86_400
            let city = Int(generator.next() % UInt64(cities.count))
            let employee = Int64(1 + generator.next() % 9)
            let shipper = Int64(1 + generator.next() % 3)
            let freight = Double(generator.next() % 100_764) / 100
            let address = "\(generator.next() % 400) Rue \(customer)"
            let region: String? = generator.next() % 5 < 2 ? "Region \(city)" : nil
            let postalCode = String(10_000 + generator.next() % 89_999)
            return Order(
                orderID: Int64(10_248 + index), customerID: customers[customer], employeeID: employee, orderDate: ordered,
                requiredDate: ordered.addingTimeInterval(requiredAfter), shippedDate: shipped, shipVia: shipper, freight: freight,
                shipName: "Customer \(customers[customer])", shipAddress: address, shipCity: cities[city], shipRegion: region,
                shipPostalCode: postalCode, shipCountry: countries[city % countries.count])
        }
    }
}
