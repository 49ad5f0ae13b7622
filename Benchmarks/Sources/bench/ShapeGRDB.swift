import BenchmarkSupport
import Foundation
import GRDB

/// The public shapes through GRDB over a `DatabasePool`: records (`FetchableRecord &
/// PersistableRecord`, hand-written `init(row:)` and `encode(to:)`, GRDB's fastest record style),
/// and rows read by column index into the raw way's structs. Dates are Core Data's (seconds since
/// 2001 as REAL), UUIDs 16-byte blobs, as both GRDB and Core Data store them.
enum ShapeGRDB {
    struct User: FetchableRecord, PersistableRecord {
        static let databaseTableName = "ZUSER"
        var key: Int64
        var entity: Int64
        var id: UUID?
        var firstName: String?
        var surname: String?
        var age: Int64

        init(key: Int64, entity: Int64, _ user: ShapeData.User) {
            (self.key, self.entity, id, firstName, surname, age) = (key, entity, user.id, user.firstName, user.surname, user.age)
        }

        init(row: Row) throws {
            key = row["Z_PK"]
            entity = row["Z_ENT"]
            id = row["ZID"]
            firstName = row["ZFIRSTNAME"]
            surname = row["ZSURNAME"]
            age = row["ZAGE"]
        }

        func encode(to container: inout PersistenceContainer) throws {
            container["Z_PK"] = key
            container["Z_ENT"] = entity
            container["Z_OPT"] = 1
            container["ZID"] = id
            container["ZFIRSTNAME"] = firstName
            container["ZSURNAME"] = surname
            container["ZAGE"] = age
        }
    }

    struct School: PersistableRecord {
        static let databaseTableName = "ZSCHOOL"
        let key: Int64, entity: Int64, value: ShapeData.School

        func encode(to container: inout PersistenceContainer) throws {
            container["Z_PK"] = key
            container["Z_ENT"] = entity
            container["Z_OPT"] = 1
            container["ZID"] = value.id
            container["ZNAME"] = value.name
            container["ZLOCATION"] = value.location
            container["ZTYPE"] = value.type
        }
    }

    struct Student: PersistableRecord {
        static let databaseTableName = "ZSTUDENT"
        let key: Int64, entity: Int64, value: ShapeData.Student

        func encode(to container: inout PersistenceContainer) throws {
            container["Z_PK"] = key
            container["Z_ENT"] = entity
            container["Z_OPT"] = 1
            container["ZID"] = value.id
            container["ZFIRSTNAME"] = value.firstName
            container["ZSURNAME"] = value.surname
            container["ZAGE"] = value.age
            container["ZSCHOOL"] = Int64(value.school + 1)
        }
    }

    struct Grade: PersistableRecord {
        static let databaseTableName = "ZGRADE"
        let key: Int64, entity: Int64, value: ShapeData.Grade

        func encode(to container: inout PersistenceContainer) throws {
            container["Z_PK"] = key
            container["Z_ENT"] = entity
            container["Z_OPT"] = 1
            container["ZID"] = value.id
            container["ZSUBJECT"] = value.subject
            container["ZGRADE"] = value.grade
            container["ZEXAMBOARD"] = value.examBoard
            container["ZSTUDENT"] = Int64(value.student + 1)
        }
    }

    struct Order: FetchableRecord, TableRecord {
        static let databaseTableName = "ZORDER"
        var key: Int64
        var orderID: Int64
        var customerID: String?
        var employeeID: Int64
        var orderDate: Date?
        var requiredDate: Date?
        var shippedDate: Date?
        var shipVia: Int64
        var freight: Double
        var shipName: String?
        var shipAddress: String?
        var shipCity: String?
        var shipRegion: String?
        var shipPostalCode: String?
        var shipCountry: String?

        init(row: Row) throws {
            let date = { (column: String) -> Date? in (row[column] as Double?).map(Date.init(timeIntervalSinceReferenceDate:)) }
            key = row["Z_PK"]
            orderID = row["ZORDERID"]
            customerID = row["ZCUSTOMERID"]
            employeeID = row["ZEMPLOYEEID"]
            orderDate = date("ZORDERDATE")
            requiredDate = date("ZREQUIREDDATE")
            shippedDate = date("ZSHIPPEDDATE")
            shipVia = row["ZSHIPVIA"]
            freight = row["ZFREIGHT"]
            shipName = row["ZSHIPNAME"]
            shipAddress = row["ZSHIPADDRESS"]
            shipCity = row["ZSHIPCITY"]
            shipRegion = row["ZSHIPREGION"]
            shipPostalCode = row["ZSHIPPOSTALCODE"]
            shipCountry = row["ZSHIPCOUNTRY"]
        }
    }

    /// GRDB's performance record: ten integer properties.
    struct Item: FetchableRecord, PersistableRecord {
        static let databaseTableName = "ZITEM"
        var key: Int64
        var entity: Int64
        var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int64

        init(key: Int64, entity: Int64, value: Int64) {
            self.key = key
            self.entity = entity
            (i0, i1, i2, i3, i4, i5, i6, i7, i8, i9) = (value, value, value, value, value, value, value, value, value, value)
        }

        init(row: Row) throws {
            key = row["Z_PK"]
            entity = row["Z_ENT"]
            (i0, i1, i2, i3, i4) = (row["ZI0"], row["ZI1"], row["ZI2"], row["ZI3"], row["ZI4"])
            (i5, i6, i7, i8, i9) = (row["ZI5"], row["ZI6"], row["ZI7"], row["ZI8"], row["ZI9"])
        }

        func encode(to container: inout PersistenceContainer) throws {
            container["Z_PK"] = key
            container["Z_ENT"] = entity
            container["Z_OPT"] = 1
            container["ZI0"] = i0
            container["ZI1"] = i1
            container["ZI2"] = i2
            container["ZI3"] = i3
            container["ZI4"] = i4
            container["ZI5"] = i5
            container["ZI6"] = i6
            container["ZI7"] = i7
            container["ZI8"] = i8
            container["ZI9"] = i9
        }
    }

    private static func entityNumber(_ name: String, _ db: Database) throws -> Int64 {
        guard let number = try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", arguments: [name]) else {
            throw BenchError("no entity \(name) in Z_PRIMARYKEY")
        }
        return number
    }

    private static func setMax(_ name: String, _ count: Int, _ db: Database) throws {
        try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = ?", arguments: [count, name])
    }

    /// A session over a pool on `url`, closed after.
    private static func session(at url: URL, _ body: @escaping (DatabasePool) throws -> Int) throws -> PublicShapes.Session {
        let pool = try DatabasePool(path: url.path)
        return PublicShapes.Session(run: { try body(pool) }, close: { try pool.close() })
    }

    static func createUsers(_ users: [ShapeData.User], at url: URL) throws -> PublicShapes.Session {
        try session(at: url) { pool in
            try pool.write { db in
                let entity = try entityNumber("User", db)
                for (index, user) in users.enumerated() { try User(key: Int64(index + 1), entity: entity, user).insert(db) }
                try setMax("User", users.count, db)
            }
            return users.count
        }
    }

    static func fetchUsers(at url: URL, rows: Bool) throws -> PublicShapes.Session {
        var records: [User] = []
        var structs: [ShapeRaw.User] = []
        var session = try session(at: url) { pool in
            if rows {
                structs = try pool.read { db in
                    var read: [ShapeRaw.User] = []
                    let cursor = try Row.fetchCursor(
                        db, sql: "SELECT Z_PK, ZID, ZFIRSTNAME, ZSURNAME, ZAGE FROM ZUSER WHERE ZFIRSTNAME = ? ORDER BY ZAGE",
                        arguments: [ShapeData.soughtName])
                    while let row = try cursor.next() {
                        read.append(ShapeRaw.User(key: row[0], id: row[1], firstName: row[2], surname: row[3], age: row[4]))
                    }
                    return read
                }
                return structs.count
            }
            records = try pool.read { db in
                try User.filter(Column("ZFIRSTNAME") == ShapeData.soughtName).order(Column("ZAGE")).fetchAll(db)
            }
            return records.count
        }
        session.release = {
            records = []
            structs = []
        }
        return session
    }

    static func createGraph(_ graph: ShapeData.Graph, at url: URL) throws -> PublicShapes.Session {
        try session(at: url) { pool in
            try pool.write { db in
                let (schoolEntity, studentEntity, gradeEntity) = (
                    try entityNumber("School", db), try entityNumber("Student", db), try entityNumber("Grade", db)
                )
                for (index, value) in graph.schools.enumerated() { try School(key: Int64(index + 1), entity: schoolEntity, value: value).insert(db) }
                for (index, value) in graph.students.enumerated() { try Student(key: Int64(index + 1), entity: studentEntity, value: value).insert(db) }
                for (index, value) in graph.grades.enumerated() { try Grade(key: Int64(index + 1), entity: gradeEntity, value: value).insert(db) }
                try setMax("School", graph.schools.count, db)
                try setMax("Student", graph.students.count, db)
                try setMax("Grade", graph.grades.count, db)
            }
            return graph.schools.count + graph.students.count + graph.grades.count
        }
    }

    static func fetchOrders(at url: URL, times: Int, rows: Bool) throws -> PublicShapes.Session {
        var records: [Order] = []
        var structs: [ShapeData.Order] = []
        var session = try session(at: url) { pool in
            // Each read's array replaces the last, as a screen that reloads its list does.
            for _ in 0..<times {
                if rows {
                    structs = try pool.read { db in
                        var read: [ShapeData.Order] = []
                        let cursor = try Row.fetchCursor(db, sql: "SELECT \(ShapeRaw.orderColumns) FROM ZORDER")
                        let date = { (value: Double?) in value.map(Date.init(timeIntervalSinceReferenceDate:)) }
                        while let row = try cursor.next() {
                            read.append(
                                ShapeData.Order(
                                    orderID: row[1], customerID: row[2], employeeID: row[3], orderDate: date(row[4])!,
                                    requiredDate: date(row[5])!, shippedDate: date(row[6]), shipVia: row[7], freight: row[8], shipName: row[9],
                                    shipAddress: row[10], shipCity: row[11], shipRegion: row[12], shipPostalCode: row[13],
                                    shipCountry: row[14]))
                        }
                        return read
                    }
                } else {
                    records = try pool.read { db in try Order.fetchAll(db) }
                }
            }
            return rows ? structs.count : records.count
        }
        session.release = {
            records = []
            structs = []
        }
        return session
    }

    static func insertItems(_ count: Int, at url: URL, rows: Bool) throws -> PublicShapes.Session {
        try session(at: url) { pool in
            try pool.write { db in
                let entity = try entityNumber("Item", db)
                if rows {
                    let statement = try db.makeStatement(
                        sql: "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZI0, ZI1, ZI2, ZI3, ZI4, ZI5, ZI6, ZI7, ZI8, ZI9) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                    for index in 0..<count {
                        let value = Int64(index)
                        try statement.execute(arguments: [Int64(index + 1), entity, value, value, value, value, value, value, value, value, value, value])
                    }
                } else {
                    for index in 0..<count { try Item(key: Int64(index + 1), entity: entity, value: Int64(index)).insert(db) }
                }
                try setMax("Item", count, db)
            }
            return count
        }
    }

    static func fetchItems(at url: URL, rows: Bool) throws -> PublicShapes.Session {
        var records: [Item] = []
        var structs: [ShapeRaw.Item] = []
        var session = try session(at: url) { pool in
            if rows {
                structs = try pool.read { db in
                    var read: [ShapeRaw.Item] = []
                    let cursor = try Row.fetchCursor(db, sql: "SELECT Z_PK, ZI0, ZI1, ZI2, ZI3, ZI4, ZI5, ZI6, ZI7, ZI8, ZI9 FROM ZITEM")
                    while let row = try cursor.next() {
                        read.append(
                            ShapeRaw.Item(
                                key: row[0], values: (row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9], row[10])))
                    }
                    return read
                }
                return structs.count
            }
            records = try pool.read { db in try Item.fetchAll(db) }
            return records.count
        }
        session.release = {
            records = []
            structs = []
        }
        return session
    }
}
