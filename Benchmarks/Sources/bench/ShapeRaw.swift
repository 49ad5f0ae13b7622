import BenchmarkSupport
import Foundation
import GRDBSQLite

/// The public shapes through SQLite's C API: prepared statements, one transaction per write, rows
/// read into plain structs. The lower bound every other way is measured against.
enum ShapeRaw {
    struct User {
        let key: Int64
        let id: UUID?
        let firstName: String
        let surname: String
        let age: Int64
    }

    struct Item {
        let key: Int64
        let values: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64)
    }

    /// Z_ENT of the entity named `name`.
    static func entityNumber(_ name: String, _ db: RawDatabase) throws -> Int64 {
        let statement = try db.prepare("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(name)'")
        defer { sqlite3_finalize(statement) }
        guard try db.stepRow(statement) else { throw BenchError("no entity \(name) in Z_PRIMARYKEY") }
        return sqlite3_column_int64(statement, 0)
    }

    static func bindUUID(_ uuid: UUID, _ statement: OpaquePointer, _ index: Int32) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            _ = sqlite3_bind_blob(statement, index, bytes.baseAddress, 16, RawDatabase.transient)
        }
    }

    static func uuid(_ statement: OpaquePointer, _ column: Int32) -> UUID? {
        guard sqlite3_column_bytes(statement, column) == 16, let bytes = sqlite3_column_blob(statement, column) else { return nil }
        return UUID(uuid: bytes.load(as: uuid_t.self))
    }

    static func optionalText(_ statement: OpaquePointer, _ column: Int32) -> String? {
        sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : RawDatabase.text(statement, column)
    }

    /// A session that runs `body` on a fresh connection and closes it after.
    private static func session(at url: URL, _ body: @escaping (RawDatabase) throws -> Int) throws -> PublicShapes.Session {
        let db = try RawDatabase(url: url)
        return PublicShapes.Session(run: { try body(db) }, close: { db.close() })
    }

    // MARK: Users

    static func fillUsers(_ users: [ShapeData.User], _ db: RawDatabase) throws {
        let entity = try entityNumber("User", db)
        let insert = try db.prepare("INSERT INTO ZUSER (Z_PK, Z_ENT, Z_OPT, ZID, ZFIRSTNAME, ZSURNAME, ZAGE) VALUES (?, ?, 1, ?, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        for (index, user) in users.enumerated() {
            sqlite3_bind_int64(insert, 1, Int64(index + 1))
            sqlite3_bind_int64(insert, 2, entity)
            bindUUID(user.id, insert, 3)
            RawDatabase.bindText(user.firstName, insert, 4)
            RawDatabase.bindText(user.surname, insert, 5)
            sqlite3_bind_int64(insert, 6, user.age)
            try db.stepDone(insert)
        }
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(users.count) WHERE Z_NAME = 'User'")
    }

    static func createUsers(_ users: [ShapeData.User], at url: URL) throws -> PublicShapes.Session {
        try session(at: url) { db in
            try db.execute("BEGIN IMMEDIATE")
            try fillUsers(users, db)
            try db.execute("COMMIT")
            return users.count
        }
    }

    static func fetchUsers(at url: URL) throws -> PublicShapes.Session {
        var users: [User] = []
        var session = try session(at: url) { db in
            let select = try db.prepare(
                "SELECT Z_PK, ZID, ZFIRSTNAME, ZSURNAME, ZAGE FROM ZUSER WHERE ZFIRSTNAME = ? ORDER BY ZAGE")
            defer { sqlite3_finalize(select) }
            RawDatabase.bindText(ShapeData.soughtName, select, 1)
            while try db.stepRow(select) {
                users.append(
                    User(
                        key: sqlite3_column_int64(select, 0), id: uuid(select, 1), firstName: RawDatabase.text(select, 2),
                        surname: RawDatabase.text(select, 3), age: sqlite3_column_int64(select, 4)))
            }
            return users.count
        }
        session.release = { users = [] }
        return session
    }

    // MARK: Schools, students, grades

    static func createGraph(_ graph: ShapeData.Graph, at url: URL) throws -> PublicShapes.Session {
        try session(at: url) { db in
            let (schoolEntity, studentEntity, gradeEntity) = (
                try entityNumber("School", db), try entityNumber("Student", db), try entityNumber("Grade", db)
            )
            try db.execute("BEGIN IMMEDIATE")
            let school = try db.prepare("INSERT INTO ZSCHOOL (Z_PK, Z_ENT, Z_OPT, ZID, ZNAME, ZLOCATION, ZTYPE) VALUES (?, ?, 1, ?, ?, ?, ?)")
            defer { sqlite3_finalize(school) }
            for (index, value) in graph.schools.enumerated() {
                sqlite3_bind_int64(school, 1, Int64(index + 1))
                sqlite3_bind_int64(school, 2, schoolEntity)
                bindUUID(value.id, school, 3)
                RawDatabase.bindText(value.name, school, 4)
                RawDatabase.bindText(value.location, school, 5)
                RawDatabase.bindText(value.type, school, 6)
                try db.stepDone(school)
            }
            let student = try db.prepare(
                "INSERT INTO ZSTUDENT (Z_PK, Z_ENT, Z_OPT, ZID, ZFIRSTNAME, ZSURNAME, ZAGE, ZSCHOOL) VALUES (?, ?, 1, ?, ?, ?, ?, ?)")
            defer { sqlite3_finalize(student) }
            for (index, value) in graph.students.enumerated() {
                sqlite3_bind_int64(student, 1, Int64(index + 1))
                sqlite3_bind_int64(student, 2, studentEntity)
                bindUUID(value.id, student, 3)
                RawDatabase.bindText(value.firstName, student, 4)
                RawDatabase.bindText(value.surname, student, 5)
                sqlite3_bind_int64(student, 6, value.age)
                sqlite3_bind_int64(student, 7, Int64(value.school + 1))
                try db.stepDone(student)
            }
            let grade = try db.prepare(
                "INSERT INTO ZGRADE (Z_PK, Z_ENT, Z_OPT, ZID, ZSUBJECT, ZGRADE, ZEXAMBOARD, ZSTUDENT) VALUES (?, ?, 1, ?, ?, ?, ?, ?)")
            defer { sqlite3_finalize(grade) }
            for (index, value) in graph.grades.enumerated() {
                sqlite3_bind_int64(grade, 1, Int64(index + 1))
                sqlite3_bind_int64(grade, 2, gradeEntity)
                bindUUID(value.id, grade, 3)
                RawDatabase.bindText(value.subject, grade, 4)
                RawDatabase.bindText(value.grade, grade, 5)
                RawDatabase.bindText(value.examBoard, grade, 6)
                sqlite3_bind_int64(grade, 7, Int64(value.student + 1))
                try db.stepDone(grade)
            }
            for (name, count) in [("School", graph.schools.count), ("Student", graph.students.count), ("Grade", graph.grades.count)] {
                try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_NAME = '\(name)'")
            }
            try db.execute("COMMIT")
            return graph.schools.count + graph.students.count + graph.grades.count
        }
    }

    // MARK: Orders

    static let orderColumns =
        "Z_PK, ZORDERID, ZCUSTOMERID, ZEMPLOYEEID, ZORDERDATE, ZREQUIREDDATE, ZSHIPPEDDATE, ZSHIPVIA, ZFREIGHT, ZSHIPNAME, ZSHIPADDRESS, ZSHIPCITY, ZSHIPREGION, ZSHIPPOSTALCODE, ZSHIPCOUNTRY"

    static func fillOrders(_ orders: [ShapeData.Order], _ db: RawDatabase) throws {
        let entity = try entityNumber("Order", db)
        let insert = try db.prepare(
            "INSERT INTO ZORDER (Z_ENT, Z_OPT, \(orderColumns)) VALUES (\(entity), 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        for (index, order) in orders.enumerated() {
            sqlite3_bind_int64(insert, 1, Int64(index + 1))
            sqlite3_bind_int64(insert, 2, order.orderID)
            RawDatabase.bindText(order.customerID, insert, 3)
            sqlite3_bind_int64(insert, 4, order.employeeID)
            sqlite3_bind_double(insert, 5, order.orderDate.timeIntervalSinceReferenceDate)
            sqlite3_bind_double(insert, 6, order.requiredDate.timeIntervalSinceReferenceDate)
            if let shipped = order.shippedDate {
                sqlite3_bind_double(insert, 7, shipped.timeIntervalSinceReferenceDate)
            } else {
                sqlite3_bind_null(insert, 7)
            }
            sqlite3_bind_int64(insert, 8, order.shipVia)
            sqlite3_bind_double(insert, 9, order.freight)
            RawDatabase.bindText(order.shipName, insert, 10)
            RawDatabase.bindText(order.shipAddress, insert, 11)
            RawDatabase.bindText(order.shipCity, insert, 12)
            if let region = order.shipRegion { RawDatabase.bindText(region, insert, 13) } else { sqlite3_bind_null(insert, 13) }
            RawDatabase.bindText(order.shipPostalCode, insert, 14)
            RawDatabase.bindText(order.shipCountry, insert, 15)
            try db.stepDone(insert)
        }
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(orders.count) WHERE Z_NAME = 'Order'")
    }

    /// Reads every order `times` times, each read's array replacing the last, as a screen that
    /// reloads its list does.
    static func fetchOrders(at url: URL, times: Int) throws -> PublicShapes.Session {
        var orders: [ShapeData.Order] = []
        var session = try session(at: url) { db in
            let select = try db.prepare("SELECT \(orderColumns) FROM ZORDER")
            defer { sqlite3_finalize(select) }
            let date = { (column: Int32) in Date(timeIntervalSinceReferenceDate: sqlite3_column_double(select, column)) }
            for _ in 0..<times {
                var read: [ShapeData.Order] = []
                while try db.stepRow(select) {
                    read.append(
                        ShapeData.Order(
                            orderID: sqlite3_column_int64(select, 1),
                            customerID: RawDatabase.text(select, 2), employeeID: sqlite3_column_int64(select, 3),
                            orderDate: date(4), requiredDate: date(5),
                            shippedDate: sqlite3_column_type(select, 6) == SQLITE_NULL ? nil : date(6),
                            shipVia: sqlite3_column_int64(select, 7), freight: sqlite3_column_double(select, 8),
                            shipName: RawDatabase.text(select, 9), shipAddress: RawDatabase.text(select, 10),
                            shipCity: RawDatabase.text(select, 11), shipRegion: optionalText(select, 12),
                            shipPostalCode: RawDatabase.text(select, 13), shipCountry: RawDatabase.text(select, 14)))
                }
                sqlite3_reset(select)
                orders = read
            }
            return orders.count
        }
        session.release = { orders = [] }
        return session
    }

    // MARK: Items of ten integers

    static func insertItemRows(_ count: Int, _ db: RawDatabase) throws {
        let entity = try entityNumber("Item", db)
        let insert = try db.prepare(
            "INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZI0, ZI1, ZI2, ZI3, ZI4, ZI5, ZI6, ZI7, ZI8, ZI9) VALUES (?, \(entity), 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        for index in 0..<count {
            sqlite3_bind_int64(insert, 1, Int64(index + 1))
            for column in Int32(2)...11 { sqlite3_bind_int64(insert, column, Int64(index)) }
            try db.stepDone(insert)
        }
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_NAME = 'Item'")
    }

    static func fillItems(_ count: Int, _ db: RawDatabase) throws { try insertItemRows(count, db) }

    static func insertItems(_ count: Int, at url: URL) throws -> PublicShapes.Session {
        try session(at: url) { db in
            try db.execute("BEGIN IMMEDIATE")
            try insertItemRows(count, db)
            try db.execute("COMMIT")
            return count
        }
    }

    static func fetchItems(at url: URL) throws -> PublicShapes.Session {
        var items: [Item] = []
        var session = try session(at: url) { db in
            let select = try db.prepare("SELECT Z_PK, ZI0, ZI1, ZI2, ZI3, ZI4, ZI5, ZI6, ZI7, ZI8, ZI9 FROM ZITEM")
            defer { sqlite3_finalize(select) }
            while try db.stepRow(select) {
                let value = { (column: Int32) in sqlite3_column_int64(select, column) }
                items.append(
                    Item(key: value(0), values: (value(1), value(2), value(3), value(4), value(5), value(6), value(7), value(8), value(9), value(10))))
            }
            return items.count
        }
        session.release = { items = [] }
        return session
    }
}
