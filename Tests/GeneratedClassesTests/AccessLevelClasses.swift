import Foundation
import OpenCoreData

// `@NSManaged` properties with every access level of getter and setter, in public, final and
// internal classes, in the class body and in extensions: each must build, in debug and release,
// and read and write its value (a form reported from an app: `public private(set)` in a
// `final public class` failed a debug build with "function has wrong linkage").

/// Ledger's codegen is "Manual/None".
public final class Ledger: NSManagedObject {
    @NSManaged public private(set) var uid: UUID
    @NSManaged public fileprivate(set) var title: String?
    @NSManaged public internal(set) var count: Int64
    @NSManaged internal private(set) var note: String?
    @NSManaged private(set) var flagged: Bool

    /// Sets every property through its own setter, from inside the class.
    public func fill(uid: UUID, title: String, count: Int64, note: String, flagged: Bool, memo: String) {
        self.uid = uid
        self.title = title
        self.count = count
        self.note = note
        self.flagged = flagged
        self.memo = memo
    }

    var isFlagged: Bool { flagged }
    var noteText: String? { note }
}

extension Ledger {
    @NSManaged public private(set) var memo: String?
}

/// A subclassable public class and an internal one, with the same declarations.
public class OpenLedger: NSManagedObject {
    @NSManaged public private(set) var uid: UUID
    @NSManaged fileprivate(set) var title: String?

    func fill(uid: UUID, title: String) {
        self.uid = uid
        self.title = title
    }
}

class InternalLedger: NSManagedObject {
    @NSManaged private(set) var uid: UUID
    @NSManaged fileprivate(set) var title: String?

    func fill(uid: UUID, title: String) {
        self.uid = uid
        self.title = title
    }
}
