/// The kinds of merge policy Core Data defines.
public enum NSMergePolicyType: UInt, Sendable {
    case errorMergePolicyType = 0
    case mergeByPropertyStoreTrumpMergePolicyType = 1
    case mergeByPropertyObjectTrumpMergePolicyType = 2
    case overwriteMergePolicyType = 3
    case rollbackMergePolicyType = 4
}

/// How a save resolves conflicts between the context's objects and the store's rows.
open class NSMergePolicy: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.

    /// The policy's kind.
    public let mergeType: NSMergePolicyType

    /// Creates a policy of `ty`.
    ///
    /// - Parameter ty: How the policy resolves conflicts; the shared instances such as
    ///   `NSMergePolicy.error` and `NSMergePolicy.mergeByPropertyObjectTrump` cover every kind.
    public init(merge ty: NSMergePolicyType) {
        self.mergeType = ty
        super.init()
    }

    /// Fail the save and report the conflicts (the default).
    public static let error = NSMergePolicy(merge: .errorMergePolicyType)
    /// Keep the store's value for every property both sides changed.
    public static let mergeByPropertyStoreTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
    /// Keep the context's value for every property both sides changed.
    public static let mergeByPropertyObjectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
    /// Write the context's objects over the store's rows.
    public static let overwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
    /// Drop the context's changes to conflicting objects.
    public static let rollback = NSMergePolicy(merge: .rollbackMergePolicyType)
}

/// The default policy: conflicts fail the save.
nonisolated(unsafe) public let NSErrorMergePolicy: Any = NSMergePolicy.error
/// Store values win property by property.
nonisolated(unsafe) public let NSMergeByPropertyStoreTrumpMergePolicy: Any = NSMergePolicy.mergeByPropertyStoreTrump
/// Context values win property by property.
nonisolated(unsafe) public let NSMergeByPropertyObjectTrumpMergePolicy: Any = NSMergePolicy.mergeByPropertyObjectTrump
/// The context's objects overwrite the store.
nonisolated(unsafe) public let NSOverwriteMergePolicy: Any = NSMergePolicy.overwrite
/// The context's conflicting changes are dropped.
nonisolated(unsafe) public let NSRollbackMergePolicy: Any = NSMergePolicy.rollback

/// A uniqueness-constraint conflict found when saving.
open class NSConstraintConflict: NSObject {
    /// The property names of the broken constraint.
    public let constraint: [String]
    /// The values the conflicting objects share for the constraint.
    public let constraintValues: [String: Any]
    /// The object already in the store, if the conflict is with a saved row.
    public let databaseObject: NSManagedObject?
    /// The snapshot of the stored row.
    public let databaseSnapshot: [String: Any]?
    /// The context's objects that conflict.
    public let conflictingObjects: [NSManagedObject]
    /// Their snapshots.
    public let conflictingSnapshots: [[AnyHashable: Any]]

    /// Creates a conflict description.
    ///
    /// - Parameters:
    ///   - contraint: The property names of the broken uniqueness constraint.
    ///   - databaseObject: The saved object the conflict is with, or `nil` when the conflict is only
    ///     between objects being saved.
    ///   - databaseSnapshot: The stored row's values by property name, or `nil`.
    ///   - conflictingObjects: The context's objects that share the constraint's values. The first
    ///     one's values for `contraint` become `constraintValues`.
    ///   - conflictingSnapshots: A snapshot dictionary for each conflicting object; elements that are
    ///     not dictionaries are dropped.
    public init(
        constraint contraint: [String], database databaseObject: NSManagedObject?,
        databaseSnapshot: [AnyHashable: Any]?, conflicting conflictingObjects: [NSManagedObject],
        conflictingSnapshots: [Any]
    ) {
        self.constraint = contraint
        self.databaseObject = databaseObject
        self.databaseSnapshot = databaseSnapshot as? [String: Any]
        self.conflictingObjects = conflictingObjects
        self.conflictingSnapshots = conflictingSnapshots.compactMap { $0 as? [AnyHashable: Any] }
        var values: [String: Any] = [:]
        if let first = conflictingObjects.first {
            for key in contraint { values[key] = first.value(forKey: key) }
        }
        self.constraintValues = values
        super.init()
    }
}

/// An optimistic-locking conflict found when saving: the row changed since the object was read.
open class NSMergeConflict: NSObject {
    /// The object whose save conflicted.
    public let sourceObject: NSManagedObject
    /// The values the object had when it was read.
    public let objectSnapshot: [String: Any]?
    /// The values the row had in the store when the save was tried.
    public let persistedSnapshot: [String: Any]?
    /// The row's version when the object was read.
    public let oldVersionNumber: Int
    /// The row's version in the store.
    public let newVersionNumber: Int

    /// Creates a conflict description.
    ///
    /// - Parameters:
    ///   - srcObject: The object whose save conflicted.
    ///   - newvers: The row's version number in the store now.
    ///   - oldvers: The row's version number when the object read it.
    ///   - cachesnap: The values the object had when it was read, or `nil`.
    ///   - persnap: The values the row has in the store, or `nil` when the row was deleted.
    public init(
        source srcObject: NSManagedObject, newVersion newvers: Int, oldVersion oldvers: Int,
        cachedSnapshot cachesnap: [String: Any]?, persistedSnapshot persnap: [String: Any]?
    ) {
        self.sourceObject = srcObject
        self.newVersionNumber = newvers
        self.oldVersionNumber = oldvers
        self.objectSnapshot = cachesnap
        self.persistedSnapshot = persnap
        super.init()
    }
}
