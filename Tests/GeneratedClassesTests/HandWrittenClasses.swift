import Foundation
import OpenCoreData

/// Manager's codegen is "Category/Extension": the class is ours, its properties generated.
public class Manager: NSManagedObject {
    var greeting: String { "Hello, \(name ?? "stranger")" }
}

/// Note's codegen is "Manual/None": all of it is ours, `@NSManaged` included.
public class Note: NSManagedObject {
    @NSManaged public var text: String?
    @NSManaged public var store: Store?
}
