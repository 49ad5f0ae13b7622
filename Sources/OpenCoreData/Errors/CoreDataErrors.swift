/// Core Data's public error codes, in `NSCocoaErrorDomain`.
///
/// The values are Apple's, so existing `catch` code that compares `error.code` keeps working.
public let NSManagedObjectValidationError = 1550
public let NSManagedObjectConstraintValidationError = 1551
public let NSValidationMultipleErrorsError = 1560
public let NSValidationMissingMandatoryPropertyError = 1570
public let NSValidationRelationshipLacksMinimumCountError = 1580
public let NSValidationRelationshipExceedsMaximumCountError = 1590
public let NSValidationRelationshipDeniedDeleteError = 1600
public let NSValidationNumberTooLargeError = 1610
public let NSValidationNumberTooSmallError = 1620
public let NSValidationDateTooLateError = 1630
public let NSValidationDateTooSoonError = 1640
public let NSValidationInvalidDateError = 1650
public let NSValidationStringTooLongError = 1660
public let NSValidationStringTooShortError = 1670
public let NSValidationStringPatternMatchingError = 1680
public let NSValidationInvalidURIError = 1690

public let NSManagedObjectContextLockingError = 132000
public let NSPersistentStoreCoordinatorLockingError = 132010
public let NSManagedObjectReferentialIntegrityError = 133000
public let NSManagedObjectExternalRelationshipError = 133010
public let NSManagedObjectMergeError = 133020
public let NSManagedObjectConstraintMergeError = 133021

public let NSPersistentStoreInvalidTypeError = 134000
public let NSPersistentStoreTypeMismatchError = 134010
public let NSPersistentStoreIncompatibleSchemaError = 134020
public let NSPersistentStoreSaveError = 134030
public let NSPersistentStoreIncompleteSaveError = 134040
public let NSPersistentStoreSaveConflictsError = 134050
public let NSCoreDataError = 134060
public let NSPersistentStoreOperationError = 134070
public let NSPersistentStoreOpenError = 134080
public let NSPersistentStoreTimeoutError = 134090
public let NSPersistentStoreUnsupportedRequestTypeError = 134091
public let NSPersistentStoreIncompatibleVersionHashError = 134100
public let NSMigrationError = 134110
public let NSMigrationConstraintViolationError = 134111
public let NSMigrationCancelledError = 134120
public let NSMigrationMissingSourceModelError = 134130
public let NSMigrationMissingMappingModelError = 134140
public let NSMigrationManagerSourceStoreError = 134150
public let NSMigrationManagerDestinationStoreError = 134160
public let NSEntityMigrationPolicyError = 134170
public let NSSQLiteError = 134180
public let NSInferredMappingModelError = 134190
public let NSExternalRecordImportError = 134200
public let NSPersistentHistoryTokenExpiredError = 134301
public let NSManagedObjectModelReferenceNotFoundError = 134504
public let NSStagedMigrationFrameworkVersionMismatchError = 134505
public let NSStagedMigrationBackwardMigrationError = 134506

/// The key of the object that failed validation, in a validation error's `userInfo`.
public let NSValidationObjectErrorKey = "NSValidationErrorObject"
/// The key of the property that failed validation.
public let NSValidationKeyErrorKey = "NSValidationErrorKey"
/// The predicate that failed validation.
public let NSValidationPredicateErrorKey = "NSValidationErrorPredicate"
/// The value that failed validation.
public let NSValidationValueErrorKey = "NSValidationErrorValue"
/// The array of errors behind an `NSValidationMultipleErrorsError`.
public let NSDetailedErrorsKey = "NSDetailedErrors"
/// The objects an error concerns.
public let NSAffectedObjectsErrorKey = "NSAffectedObjectsErrorKey"
/// The stores an error concerns.
public let NSAffectedStoresErrorKey = "NSAffectedStoresErrorKey"
/// The conflicts behind a merge or constraint error.
public let NSPersistentStoreSaveConflictsErrorKey = "conflictList"
/// SQLite's own result code, in an `NSSQLiteError`.
public let NSSQLiteErrorDomain = "NSSQLiteErrorDomain"

/// Builds Core Data errors in one place so every one carries a description and the keys Apple sets.
package enum CoreDataError {
    package static func make(_ code: Int, _ description: String, userInfo: [String: Any] = [:]) -> NSError {
        var info = userInfo
        info[NSLocalizedDescriptionKey] = description
        return NSError(domain: NSCocoaErrorDomain, code: code, userInfo: info)
    }

    package static func validation(
        _ code: Int, _ description: String, object: AnyObject?, key: String?, value: Any? = nil
    ) -> NSError {
        var info: [String: Any] = [:]
        if let object { info[NSValidationObjectErrorKey] = object }
        if let key { info[NSValidationKeyErrorKey] = key }
        if let value { info[NSValidationValueErrorKey] = value }
        return make(code, description, userInfo: info)
    }

    /// The errors `error` stands for: the list of an `NSValidationMultipleErrorsError`, or itself,
    /// so that errors collected from several validations combine into one flat list.
    static func separated(_ error: NSError) -> [NSError] {
        guard error.code == NSValidationMultipleErrorsError, let detailed = error.userInfo[NSDetailedErrorsKey] as? [NSError] else { return [error] }
        return detailed
    }

    /// Several validation errors become one `NSValidationMultipleErrorsError` with the list, as Apple does;
    /// a single one is returned as it is.
    static func combining(_ errors: [NSError]) -> NSError? {
        switch errors.count {
        case 0: return nil
        case 1: return errors[0]
        default:
            return make(
                NSValidationMultipleErrorsError,
                "Multiple validation errors occurred.",
                userInfo: [NSDetailedErrorsKey: errors])
        }
    }
}
