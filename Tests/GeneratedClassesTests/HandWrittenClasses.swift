import Foundation
import OpenCoreData

/// Manager's codegen is "Category/Extension": the class is ours, its properties generated.
public class Manager: NSManagedObject {
    var greeting: String { "Hello, \(name ?? "stranger")" }
}

// Note's and Shelf's codegen is "Manual/None": all of it is ours, in the two files a class each
// that Xcode's "Create NSManagedObject Subclass…" writes (`Note+CoreDataClass.swift`,
// `Note+CoreDataProperties.swift`, …): the class files hold no `@NSManaged`.
