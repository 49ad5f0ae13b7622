import Foundation
@testable import OpenCoreData

// What the ManagedObjectCodegen plugin will write for `ManagedPropertyClasses.swift`: each
// accessor the compiler left undefined, under its symbol (`SwiftMangler` computes these names;
// ManagedPropertyTests checks them against it), calling the runtime's `_managedValue` family.

extension ManagedTask {
    var __managed_title: String? {
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC5titleSSSgvg") get { _managedValue(forKey: "title") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC5titleSSSgvs") set { _setManagedValue(newValue, forKey: "title") }
    }
    var __managed_notes: String {
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC5notesSSvg") get { _managedValue(forKey: "notes") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC5notesSSvs") set { _setManagedValue(newValue, forKey: "notes") }
    }
    var __managed_createdAt: Date? {
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC9createdAt20FoundationEssentials4DateVSgvg") get { _managedValue(forKey: "createdAt") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC9createdAt20FoundationEssentials4DateVSgvs") set { _setManagedValue(newValue, forKey: "createdAt") }
    }
    var __managed_done: Bool {
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC4doneSbvg") get { _managedValue(forKey: "done") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC4doneSbvs") set { _setManagedValue(newValue, forKey: "done") }
    }
    var __managed_priority: Int64 {
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC8prioritys5Int64Vvg") get { _managedValue(forKey: "priority") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC8prioritys5Int64Vvs") set { _setManagedValue(newValue, forKey: "priority") }
    }
    var __managed_estimate: Double {
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC8estimateSdvg") get { _managedValue(forKey: "estimate") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC8estimateSdvs") set { _setManagedValue(newValue, forKey: "estimate") }
    }
    var __managed_list: ManagedList? {
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC4listAA0E4ListCSgvg") get { _managedValue(forKey: "list") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC4listAA0E4ListCSgvs") set { _setManagedValue(newValue, forKey: "list") }
    }
    var __managed_primitiveTitle: String? {
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC14primitiveTitleSSSgvg") get { _managedPrimitiveValue(forKey: "title") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedTaskC14primitiveTitleSSSgvs") set { _setManagedPrimitiveValue(newValue, forKey: "title") }
    }
}

extension ManagedList {
    var __managed_name: String? {
        @_silgen_name("$s17OpenCoreDataTests11ManagedListC4nameSSSgvg") get { _managedValue(forKey: "name") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedListC4nameSSSgvs") set { _setManagedValue(newValue, forKey: "name") }
    }
    var __managed_tasks: NSSet? {
        @_silgen_name("$s17OpenCoreDataTests11ManagedListC5tasks10Foundation5NSSetCSgvg") get { _managedValue(forKey: "tasks") }
        @_silgen_name("$s17OpenCoreDataTests11ManagedListC5tasks10Foundation5NSSetCSgvs") set { _setManagedValue(newValue, forKey: "tasks") }
    }
    @_silgen_name("$s17OpenCoreDataTests11ManagedListC10addToTasksyyAA0E4TaskCF")
    func __managed_addToTasks(_ value: ManagedTask) { _addManagedObjects(value, toKey: "tasks") }
    @_silgen_name("$s17OpenCoreDataTests11ManagedListC15removeFromTasksyyAA0E4TaskCF")
    func __managed_removeFromTasks(_ value: ManagedTask) { _removeManagedObjects(value, fromKey: "tasks") }
    @_silgen_name("$s17OpenCoreDataTests11ManagedListC10addToTasksyy10Foundation5NSSetCF")
    func __managed_addToTasks(_ values: NSSet) { _addManagedObjects(values, toKey: "tasks") }
}
