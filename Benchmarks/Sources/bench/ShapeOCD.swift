import BenchmarkSupport
import Foundation
import OpenCoreData

/// The public shapes through OpenCoreData, as an app writes them: a container on the SQLite
/// store, a background context, `performAndWait`. `typed: false` is Core Data's KVC
/// (`insertNewObject(forEntityName:into:)`, `setValue(_:forKey:)`, fetches of `NSManagedObject`);
/// `typed: true` is the `@NSManaged` classes of `ShapeModels`, and its fetches read every
/// property of every object they return, as code that uses its results does.
enum ShapeOCD {
    /// What a run keeps until it is released.
    private final class Results {
        var objects: [NSManagedObject] = []
    }

    private static func session(
        at url: URL, model: NSManagedObjectModel, _ body: @escaping (NSManagedObjectContext, Results) throws -> Int
    ) throws -> PublicShapes.Session {
        let container = NSPersistentContainer(name: "Shape", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        let context = container.newBackgroundContext()
        let results = Results()
        return PublicShapes.Session(
            run: { try context.performAndWait { try body(context, results) } },
            release: {
                results.objects = []
                context.performAndWait { context.reset() }
            },
            close: {
                let coordinator = container.persistentStoreCoordinator
                for store in coordinator.persistentStores { try coordinator.remove(store) }
            })
    }

    // MARK: Users

    static func createUsers(_ users: [ShapeData.User], at url: URL, model: NSManagedObjectModel, typed: Bool) throws -> PublicShapes.Session {
        try session(at: url, model: model) { context, _ in
            for user in users {
                if typed {
                    let object = ShapeUser(context: context)
                    object.id = user.id
                    object.firstName = user.firstName
                    object.surname = user.surname
                    object.age = user.age
                } else {
                    let object = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
                    object.setValue(user.id, forKey: "id")
                    object.setValue(user.firstName, forKey: "firstName")
                    object.setValue(user.surname, forKey: "surname")
                    object.setValue(user.age, forKey: "age")
                }
            }
            try context.save()
            return users.count
        }
    }

    static func fetchUsers(at url: URL, model: NSManagedObjectModel, typed: Bool) throws -> PublicShapes.Session {
        try session(at: url, model: model) { context, results in
            let predicate = NSPredicate(format: "firstName == %@", ShapeData.soughtName)
            let order = [NSSortDescriptor(key: "age", ascending: true)]
            if typed {
                let request = NSFetchRequest<ShapeUser>(entityName: "User")
                (request.predicate, request.sortDescriptors, request.returnsObjectsAsFaults) = (predicate, order, false)
                let users = try context.fetch(request)
                var touched = 0
                for user in users {
                    touched &+= (user.id?.hashValue ?? 0) &+ user.firstName!.utf8.count &+ user.surname!.utf8.count &+ Int(user.age)
                }
                precondition(touched != 0 || users.isEmpty)
                results.objects = users
            } else {
                let request = NSFetchRequest<NSManagedObject>(entityName: "User")
                (request.predicate, request.sortDescriptors, request.returnsObjectsAsFaults) = (predicate, order, false)
                results.objects = try context.fetch(request)
            }
            return results.objects.count
        }
    }

    // MARK: Schools, students, grades

    static func createGraph(_ graph: ShapeData.Graph, at url: URL, model: NSManagedObjectModel, typed: Bool) throws -> PublicShapes.Session {
        try session(at: url, model: model) { context, _ in
            if typed {
                let schools = graph.schools.map { value in
                    let school = ShapeSchool(context: context)
                    (school.id, school.name, school.location, school.type) = (value.id, value.name, value.location, value.type)
                    return school
                }
                let students = graph.students.map { value in
                    let student = ShapeStudent(context: context)
                    (student.id, student.firstName, student.surname, student.age) = (value.id, value.firstName, value.surname, value.age)
                    student.school = schools[value.school]
                    return student
                }
                for value in graph.grades {
                    let grade = ShapeGrade(context: context)
                    (grade.id, grade.subject, grade.grade, grade.examBoard) = (value.id, value.subject, value.grade, value.examBoard)
                    grade.student = students[value.student]
                }
            } else {
                let insert = { (entity: String, values: [String: Any]) -> NSManagedObject in
                    let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
                    for (key, value) in values { object.setValue(value, forKey: key) }
                    return object
                }
                let schools = graph.schools.map { value in
                    insert("School", ["id": value.id, "name": value.name, "location": value.location, "type": value.type])
                }
                let students = graph.students.map { value in
                    insert(
                        "Student",
                        ["id": value.id, "firstName": value.firstName, "surname": value.surname, "age": value.age, "school": schools[value.school]])
                }
                for value in graph.grades {
                    _ = insert(
                        "Grade",
                        ["id": value.id, "subject": value.subject, "grade": value.grade, "examBoard": value.examBoard, "student": students[value.student]])
                }
            }
            try context.save()
            return graph.schools.count + graph.students.count + graph.grades.count
        }
    }

    // MARK: Orders

    static func fetchOrders(at url: URL, model: NSManagedObjectModel, times: Int, typed: Bool) throws -> PublicShapes.Session {
        try session(at: url, model: model) { context, results in
            // Each fetch's array replaces the last, as a screen that reloads its list does.
            for _ in 0..<times {
                if typed {
                    let request = NSFetchRequest<ShapeOrder>(entityName: "Order")
                    request.returnsObjectsAsFaults = false
                    let orders = try context.fetch(request)
                    var touched = 0
                    for order in orders {
                        touched &+= Int(order.orderID) &+ (order.customerID?.utf8.count ?? 0) &+ Int(order.employeeID)
                        touched &+= Int(order.orderDate?.timeIntervalSinceReferenceDate ?? 0)
                        touched &+= Int(order.requiredDate?.timeIntervalSinceReferenceDate ?? 0)
                        touched &+= Int(order.shippedDate?.timeIntervalSinceReferenceDate ?? 0)
                        touched &+= Int(order.shipVia) &+ Int(order.freight) &+ (order.shipName?.utf8.count ?? 0)
                        touched &+= (order.shipAddress?.utf8.count ?? 0) &+ (order.shipCity?.utf8.count ?? 0)
                        touched &+= (order.shipRegion?.utf8.count ?? 0) &+ (order.shipPostalCode?.utf8.count ?? 0)
                        touched &+= order.shipCountry?.utf8.count ?? 0
                    }
                    precondition(touched != 0)
                    results.objects = orders
                } else {
                    let request = NSFetchRequest<NSManagedObject>(entityName: "Order")
                    request.returnsObjectsAsFaults = false
                    results.objects = try context.fetch(request)
                }
            }
            return results.objects.count
        }
    }

    // MARK: Items of ten integers

    private static let itemKeys = (0..<10).map { "i\($0)" }

    static func insertItems(_ count: Int, at url: URL, model: NSManagedObjectModel, typed: Bool) throws -> PublicShapes.Session {
        try session(at: url, model: model) { context, _ in
            for index in 0..<count {
                let value = Int64(index)
                if typed {
                    let item = ShapeItem(context: context)
                    (item.i0, item.i1, item.i2, item.i3, item.i4) = (value, value, value, value, value)
                    (item.i5, item.i6, item.i7, item.i8, item.i9) = (value, value, value, value, value)
                } else {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
                    for key in itemKeys { item.setValue(value, forKey: key) }
                }
            }
            try context.save()
            return count
        }
    }

    static func fetchItems(at url: URL, model: NSManagedObjectModel, typed: Bool) throws -> PublicShapes.Session {
        try session(at: url, model: model) { context, results in
            if typed {
                let request = NSFetchRequest<ShapeItem>(entityName: "Item")
                request.returnsObjectsAsFaults = false
                let items = try context.fetch(request)
                var touched: Int64 = 0
                for item in items {
                    touched &+= item.i0 &+ item.i1 &+ item.i2 &+ item.i3 &+ item.i4 &+ item.i5 &+ item.i6 &+ item.i7 &+ item.i8 &+ item.i9
                }
                precondition(touched != 0 || items.count < 2)
                results.objects = items
            } else {
                let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
                request.returnsObjectsAsFaults = false
                results.objects = try context.fetch(request)
            }
            return results.objects.count
        }
    }
}
