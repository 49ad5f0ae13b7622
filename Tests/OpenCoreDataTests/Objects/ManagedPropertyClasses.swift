import Foundation
@testable import OpenCoreData

/// Subclasses written as for Apple's Core Data, with `@NSManaged` properties and to-many
/// accessors. On Linux their accessors are left undefined by the compiler; the
/// ManagedObjectCodegen plugin supplies them.
final class ManagedTask: NSManagedObject {
    @NSManaged var title: String?
    @NSManaged var notes: String
    @NSManaged var createdAt: Date?
    /// Non-optional in Swift, without a default in the model: nil until set, as Apple's sample
    /// code declares required dates.
    @NSManaged var dueAt: Date
    @NSManaged var done: Bool
    @NSManaged var priority: Int64
    @NSManaged var estimate: Double
    @NSManaged var list: ManagedList?
}

class ManagedList: NSManagedObject {
    @NSManaged var name: String?
    @NSManaged var tasks: NSSet?
    @NSManaged func addToTasks(_ value: ManagedTask)
    @NSManaged func removeFromTasks(_ value: ManagedTask)
    @NSManaged func addToTasks(_ values: NSSet)
}

extension ManagedTask {
    /// A primitive accessor declared as on Apple platforms.
    @NSManaged var primitiveTitle: String?
}
