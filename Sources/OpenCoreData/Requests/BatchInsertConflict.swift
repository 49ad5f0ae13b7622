extension NSEntityDescription {
    /// The uniqueness constraints of the entity and its superentities, as their attributes.
    package var storedUniquenessConstraints: [[NSPropertyDescription]] {
        var result: [[NSPropertyDescription]] = []
        var current: NSEntityDescription? = self
        while let e = current {
            for constraint in e.uniquenessConstraints {
                let properties = VersionHasher.constraintNames(constraint).compactMap { e.propertiesByName[$0] }
                if !properties.isEmpty, properties.allSatisfy({ $0.columnName != nil }) { result.append(properties) }
            }
            current = e.superentity
        }
        return result
    }
}

/// What a batch insert does with a row that breaks a uniqueness constraint: what the executing
/// context's merge policy says.
package enum BatchInsertConflict {
    case fail
    case keepExisting
    case overwrite

    /// The error policy fails the request, the store-trump and rollback policies keep the existing
    /// row, the object-trump and overwrite policies write the new values over it.
    package init(policy: NSMergePolicyType) {
        switch policy {
        case .errorMergePolicyType: self = .fail
        case .mergeByPropertyStoreTrumpMergePolicyType, .rollbackMergePolicyType: self = .keepExisting
        case .mergeByPropertyObjectTrumpMergePolicyType, .overwriteMergePolicyType: self = .overwrite
        }
    }

    /// Core Data's error for a batch insert refused by `NSErrorMergePolicy`.
    /// Whether the existing row gives way to the row that broke `constraint`; false keeps it.
    ///
    /// - Parameters:
    ///   - entity: The entity inserted.
    ///   - constraint: The uniqueness constraint the row broke.
    ///   - values: The row's values, for the error.
    /// - Returns: True to overwrite the existing row, false to leave it as it is.
    /// - Throws: Core Data's constraint error (`error(_:_:values:)`) under `.fail`.
    package func overwrites(_ entity: NSEntityDescription, _ constraint: [NSPropertyDescription], values: @autoclosure () -> [String: Any]) throws -> Bool {
        switch self {
        case .fail: throw Self.error(entity, constraint, values: values())
        case .keepExisting: return false
        case .overwrite: return true
        }
    }

    package static func error(_ entity: NSEntityDescription, _ constraint: [NSPropertyDescription], values: [String: Any]) -> NSError {
        let names = constraint.map(\.name)
        let conflict = NSConstraintConflict(
            constraint: names, database: nil, databaseSnapshot: nil, conflicting: [], conflictingSnapshots: [values])
        return CoreDataError.make(
            NSManagedObjectConstraintMergeError,
            "The NSBatchInsertRequest broke the uniqueness constraint (\(names.joined(separator: ", "))) of entity \(entity.name ?? "?"); set the context's mergePolicy to update or keep the existing rows instead.",
            userInfo: [NSPersistentStoreSaveConflictsErrorKey: [conflict]])
    }
}
