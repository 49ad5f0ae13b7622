/// The `CocoaError.Code` members Core Data adds, as Swift code spells them on Apple platforms, so
/// that `catch let error as CocoaError where error.code == .validationMissingMandatoryProperty`
/// compiles and matches. Every error OpenCoreData throws is an `NSError` in `NSCocoaErrorDomain`,
/// which Foundation bridges to `CocoaError`.
///
/// The list is Apple's, no more: codes that Apple exposes only as integer constants
/// (`NSManagedObjectConstraintValidationError`, `NSPersistentHistoryTokenExpiredError`, the staged
/// migration codes…) have no member here either; compare `error.code.rawValue` with the constant.
extension CocoaError.Code {
    /// `NSManagedObjectValidationError` (1550).
    public static var managedObjectValidation: CocoaError.Code { CocoaError.Code(rawValue: 1550) }
    /// `NSValidationMultipleErrorsError` (1560).
    public static var validationMultipleErrors: CocoaError.Code { CocoaError.Code(rawValue: 1560) }
    /// `NSValidationMissingMandatoryPropertyError` (1570).
    public static var validationMissingMandatoryProperty: CocoaError.Code { CocoaError.Code(rawValue: 1570) }
    /// `NSValidationRelationshipLacksMinimumCountError` (1580).
    public static var validationRelationshipLacksMinimumCount: CocoaError.Code { CocoaError.Code(rawValue: 1580) }
    /// `NSValidationRelationshipExceedsMaximumCountError` (1590).
    public static var validationRelationshipExceedsMaximumCount: CocoaError.Code { CocoaError.Code(rawValue: 1590) }
    /// `NSValidationRelationshipDeniedDeleteError` (1600).
    public static var validationRelationshipDeniedDelete: CocoaError.Code { CocoaError.Code(rawValue: 1600) }
    /// `NSValidationNumberTooLargeError` (1610).
    public static var validationNumberTooLarge: CocoaError.Code { CocoaError.Code(rawValue: 1610) }
    /// `NSValidationNumberTooSmallError` (1620).
    public static var validationNumberTooSmall: CocoaError.Code { CocoaError.Code(rawValue: 1620) }
    /// `NSValidationDateTooLateError` (1630).
    public static var validationDateTooLate: CocoaError.Code { CocoaError.Code(rawValue: 1630) }
    /// `NSValidationDateTooSoonError` (1640).
    public static var validationDateTooSoon: CocoaError.Code { CocoaError.Code(rawValue: 1640) }
    /// `NSValidationInvalidDateError` (1650).
    public static var validationInvalidDate: CocoaError.Code { CocoaError.Code(rawValue: 1650) }
    /// `NSValidationStringTooLongError` (1660).
    public static var validationStringTooLong: CocoaError.Code { CocoaError.Code(rawValue: 1660) }
    /// `NSValidationStringTooShortError` (1670).
    public static var validationStringTooShort: CocoaError.Code { CocoaError.Code(rawValue: 1670) }
    /// `NSValidationStringPatternMatchingError` (1680).
    public static var validationStringPatternMatching: CocoaError.Code { CocoaError.Code(rawValue: 1680) }
    /// `NSManagedObjectContextLockingError` (132000).
    public static var managedObjectContextLocking: CocoaError.Code { CocoaError.Code(rawValue: 132000) }
    /// `NSPersistentStoreCoordinatorLockingError` (132010).
    public static var persistentStoreCoordinatorLocking: CocoaError.Code { CocoaError.Code(rawValue: 132010) }
    /// `NSManagedObjectReferentialIntegrityError` (133000).
    public static var managedObjectReferentialIntegrity: CocoaError.Code { CocoaError.Code(rawValue: 133000) }
    /// `NSManagedObjectExternalRelationshipError` (133010).
    public static var managedObjectExternalRelationship: CocoaError.Code { CocoaError.Code(rawValue: 133010) }
    /// `NSManagedObjectMergeError` (133020).
    public static var managedObjectMerge: CocoaError.Code { CocoaError.Code(rawValue: 133020) }
    /// `NSManagedObjectConstraintMergeError` (133021).
    public static var managedObjectConstraintMerge: CocoaError.Code { CocoaError.Code(rawValue: 133021) }
    /// `NSPersistentStoreInvalidTypeError` (134000).
    public static var persistentStoreInvalidType: CocoaError.Code { CocoaError.Code(rawValue: 134000) }
    /// `NSPersistentStoreTypeMismatchError` (134010).
    public static var persistentStoreTypeMismatch: CocoaError.Code { CocoaError.Code(rawValue: 134010) }
    /// `NSPersistentStoreIncompatibleSchemaError` (134020).
    public static var persistentStoreIncompatibleSchema: CocoaError.Code { CocoaError.Code(rawValue: 134020) }
    /// `NSPersistentStoreSaveError` (134030).
    public static var persistentStoreSave: CocoaError.Code { CocoaError.Code(rawValue: 134030) }
    /// `NSPersistentStoreIncompleteSaveError` (134040).
    public static var persistentStoreIncompleteSave: CocoaError.Code { CocoaError.Code(rawValue: 134040) }
    /// `NSPersistentStoreSaveConflictsError` (134050).
    public static var persistentStoreSaveConflicts: CocoaError.Code { CocoaError.Code(rawValue: 134050) }
    /// `NSCoreDataError` (134060).
    public static var coreData: CocoaError.Code { CocoaError.Code(rawValue: 134060) }
    /// `NSPersistentStoreOperationError` (134070).
    public static var persistentStoreOperation: CocoaError.Code { CocoaError.Code(rawValue: 134070) }
    /// `NSPersistentStoreOpenError` (134080).
    public static var persistentStoreOpen: CocoaError.Code { CocoaError.Code(rawValue: 134080) }
    /// `NSPersistentStoreTimeoutError` (134090).
    public static var persistentStoreTimeout: CocoaError.Code { CocoaError.Code(rawValue: 134090) }
    /// `NSPersistentStoreUnsupportedRequestTypeError` (134091).
    public static var persistentStoreUnsupportedRequestType: CocoaError.Code { CocoaError.Code(rawValue: 134091) }
    /// `NSPersistentStoreIncompatibleVersionHashError` (134100).
    public static var persistentStoreIncompatibleVersionHash: CocoaError.Code { CocoaError.Code(rawValue: 134100) }
    /// `NSMigrationError` (134110).
    public static var migration: CocoaError.Code { CocoaError.Code(rawValue: 134110) }
    /// `NSMigrationCancelledError` (134120).
    public static var migrationCancelled: CocoaError.Code { CocoaError.Code(rawValue: 134120) }
    /// `NSMigrationMissingSourceModelError` (134130).
    public static var migrationMissingSourceModel: CocoaError.Code { CocoaError.Code(rawValue: 134130) }
    /// `NSMigrationMissingMappingModelError` (134140).
    public static var migrationMissingMappingModel: CocoaError.Code { CocoaError.Code(rawValue: 134140) }
    /// `NSMigrationManagerSourceStoreError` (134150).
    public static var migrationManagerSourceStore: CocoaError.Code { CocoaError.Code(rawValue: 134150) }
    /// `NSMigrationManagerDestinationStoreError` (134160).
    public static var migrationManagerDestinationStore: CocoaError.Code { CocoaError.Code(rawValue: 134160) }
    /// `NSEntityMigrationPolicyError` (134170).
    public static var entityMigrationPolicy: CocoaError.Code { CocoaError.Code(rawValue: 134170) }
    /// `NSSQLiteError` (134180).
    public static var sqlite: CocoaError.Code { CocoaError.Code(rawValue: 134180) }
    /// `NSInferredMappingModelError` (134190).
    public static var inferredMappingModel: CocoaError.Code { CocoaError.Code(rawValue: 134190) }
    /// `NSExternalRecordImportError` (134200).
    public static var externalRecordImport: CocoaError.Code { CocoaError.Code(rawValue: 134200) }
}

/// The same codes on `CocoaError` itself, as Apple declares them there too
/// (`CocoaError.validationMissingMandatoryProperty`).
extension CocoaError {
    /// `NSManagedObjectValidationError` (1550).
    public static var managedObjectValidation: CocoaError.Code { CocoaError.Code(rawValue: 1550) }
    /// `NSValidationMultipleErrorsError` (1560).
    public static var validationMultipleErrors: CocoaError.Code { CocoaError.Code(rawValue: 1560) }
    /// `NSValidationMissingMandatoryPropertyError` (1570).
    public static var validationMissingMandatoryProperty: CocoaError.Code { CocoaError.Code(rawValue: 1570) }
    /// `NSValidationRelationshipLacksMinimumCountError` (1580).
    public static var validationRelationshipLacksMinimumCount: CocoaError.Code { CocoaError.Code(rawValue: 1580) }
    /// `NSValidationRelationshipExceedsMaximumCountError` (1590).
    public static var validationRelationshipExceedsMaximumCount: CocoaError.Code { CocoaError.Code(rawValue: 1590) }
    /// `NSValidationRelationshipDeniedDeleteError` (1600).
    public static var validationRelationshipDeniedDelete: CocoaError.Code { CocoaError.Code(rawValue: 1600) }
    /// `NSValidationNumberTooLargeError` (1610).
    public static var validationNumberTooLarge: CocoaError.Code { CocoaError.Code(rawValue: 1610) }
    /// `NSValidationNumberTooSmallError` (1620).
    public static var validationNumberTooSmall: CocoaError.Code { CocoaError.Code(rawValue: 1620) }
    /// `NSValidationDateTooLateError` (1630).
    public static var validationDateTooLate: CocoaError.Code { CocoaError.Code(rawValue: 1630) }
    /// `NSValidationDateTooSoonError` (1640).
    public static var validationDateTooSoon: CocoaError.Code { CocoaError.Code(rawValue: 1640) }
    /// `NSValidationInvalidDateError` (1650).
    public static var validationInvalidDate: CocoaError.Code { CocoaError.Code(rawValue: 1650) }
    /// `NSValidationStringTooLongError` (1660).
    public static var validationStringTooLong: CocoaError.Code { CocoaError.Code(rawValue: 1660) }
    /// `NSValidationStringTooShortError` (1670).
    public static var validationStringTooShort: CocoaError.Code { CocoaError.Code(rawValue: 1670) }
    /// `NSValidationStringPatternMatchingError` (1680).
    public static var validationStringPatternMatching: CocoaError.Code { CocoaError.Code(rawValue: 1680) }
    /// `NSManagedObjectContextLockingError` (132000).
    public static var managedObjectContextLocking: CocoaError.Code { CocoaError.Code(rawValue: 132000) }
    /// `NSPersistentStoreCoordinatorLockingError` (132010).
    public static var persistentStoreCoordinatorLocking: CocoaError.Code { CocoaError.Code(rawValue: 132010) }
    /// `NSManagedObjectReferentialIntegrityError` (133000).
    public static var managedObjectReferentialIntegrity: CocoaError.Code { CocoaError.Code(rawValue: 133000) }
    /// `NSManagedObjectExternalRelationshipError` (133010).
    public static var managedObjectExternalRelationship: CocoaError.Code { CocoaError.Code(rawValue: 133010) }
    /// `NSManagedObjectMergeError` (133020).
    public static var managedObjectMerge: CocoaError.Code { CocoaError.Code(rawValue: 133020) }
    /// `NSManagedObjectConstraintMergeError` (133021).
    public static var managedObjectConstraintMerge: CocoaError.Code { CocoaError.Code(rawValue: 133021) }
    /// `NSPersistentStoreInvalidTypeError` (134000).
    public static var persistentStoreInvalidType: CocoaError.Code { CocoaError.Code(rawValue: 134000) }
    /// `NSPersistentStoreTypeMismatchError` (134010).
    public static var persistentStoreTypeMismatch: CocoaError.Code { CocoaError.Code(rawValue: 134010) }
    /// `NSPersistentStoreIncompatibleSchemaError` (134020).
    public static var persistentStoreIncompatibleSchema: CocoaError.Code { CocoaError.Code(rawValue: 134020) }
    /// `NSPersistentStoreSaveError` (134030).
    public static var persistentStoreSave: CocoaError.Code { CocoaError.Code(rawValue: 134030) }
    /// `NSPersistentStoreIncompleteSaveError` (134040).
    public static var persistentStoreIncompleteSave: CocoaError.Code { CocoaError.Code(rawValue: 134040) }
    /// `NSPersistentStoreSaveConflictsError` (134050).
    public static var persistentStoreSaveConflicts: CocoaError.Code { CocoaError.Code(rawValue: 134050) }
    /// `NSCoreDataError` (134060).
    public static var coreData: CocoaError.Code { CocoaError.Code(rawValue: 134060) }
    /// `NSPersistentStoreOperationError` (134070).
    public static var persistentStoreOperation: CocoaError.Code { CocoaError.Code(rawValue: 134070) }
    /// `NSPersistentStoreOpenError` (134080).
    public static var persistentStoreOpen: CocoaError.Code { CocoaError.Code(rawValue: 134080) }
    /// `NSPersistentStoreTimeoutError` (134090).
    public static var persistentStoreTimeout: CocoaError.Code { CocoaError.Code(rawValue: 134090) }
    /// `NSPersistentStoreUnsupportedRequestTypeError` (134091).
    public static var persistentStoreUnsupportedRequestType: CocoaError.Code { CocoaError.Code(rawValue: 134091) }
    /// `NSPersistentStoreIncompatibleVersionHashError` (134100).
    public static var persistentStoreIncompatibleVersionHash: CocoaError.Code { CocoaError.Code(rawValue: 134100) }
    /// `NSMigrationError` (134110).
    public static var migration: CocoaError.Code { CocoaError.Code(rawValue: 134110) }
    /// `NSMigrationCancelledError` (134120).
    public static var migrationCancelled: CocoaError.Code { CocoaError.Code(rawValue: 134120) }
    /// `NSMigrationMissingSourceModelError` (134130).
    public static var migrationMissingSourceModel: CocoaError.Code { CocoaError.Code(rawValue: 134130) }
    /// `NSMigrationMissingMappingModelError` (134140).
    public static var migrationMissingMappingModel: CocoaError.Code { CocoaError.Code(rawValue: 134140) }
    /// `NSMigrationManagerSourceStoreError` (134150).
    public static var migrationManagerSourceStore: CocoaError.Code { CocoaError.Code(rawValue: 134150) }
    /// `NSMigrationManagerDestinationStoreError` (134160).
    public static var migrationManagerDestinationStore: CocoaError.Code { CocoaError.Code(rawValue: 134160) }
    /// `NSEntityMigrationPolicyError` (134170).
    public static var entityMigrationPolicy: CocoaError.Code { CocoaError.Code(rawValue: 134170) }
    /// `NSSQLiteError` (134180).
    public static var sqlite: CocoaError.Code { CocoaError.Code(rawValue: 134180) }
    /// `NSInferredMappingModelError` (134190).
    public static var inferredMappingModel: CocoaError.Code { CocoaError.Code(rawValue: 134190) }
    /// `NSExternalRecordImportError` (134200).
    public static var externalRecordImport: CocoaError.Code { CocoaError.Code(rawValue: 134200) }
}

/// The names these codes had before Swift 4, still accepted with a warning, as on Apple platforms.
extension CocoaError.Code {
    @available(*, deprecated, renamed: "managedObjectValidation")
    public static var managedObjectValidationError: CocoaError.Code { CocoaError.Code(rawValue: 1550) }
    @available(*, deprecated, renamed: "validationMultipleErrors")
    public static var validationMultipleErrorsError: CocoaError.Code { CocoaError.Code(rawValue: 1560) }
    @available(*, deprecated, renamed: "validationMissingMandatoryProperty")
    public static var validationMissingMandatoryPropertyError: CocoaError.Code { CocoaError.Code(rawValue: 1570) }
    @available(*, deprecated, renamed: "validationRelationshipLacksMinimumCount")
    public static var validationRelationshipLacksMinimumCountError: CocoaError.Code { CocoaError.Code(rawValue: 1580) }
    @available(*, deprecated, renamed: "validationRelationshipExceedsMaximumCount")
    public static var validationRelationshipExceedsMaximumCountError: CocoaError.Code { CocoaError.Code(rawValue: 1590) }
    @available(*, deprecated, renamed: "validationRelationshipDeniedDelete")
    public static var validationRelationshipDeniedDeleteError: CocoaError.Code { CocoaError.Code(rawValue: 1600) }
    @available(*, deprecated, renamed: "validationNumberTooLarge")
    public static var validationNumberTooLargeError: CocoaError.Code { CocoaError.Code(rawValue: 1610) }
    @available(*, deprecated, renamed: "validationNumberTooSmall")
    public static var validationNumberTooSmallError: CocoaError.Code { CocoaError.Code(rawValue: 1620) }
    @available(*, deprecated, renamed: "validationDateTooLate")
    public static var validationDateTooLateError: CocoaError.Code { CocoaError.Code(rawValue: 1630) }
    @available(*, deprecated, renamed: "validationDateTooSoon")
    public static var validationDateTooSoonError: CocoaError.Code { CocoaError.Code(rawValue: 1640) }
    @available(*, deprecated, renamed: "validationInvalidDate")
    public static var validationInvalidDateError: CocoaError.Code { CocoaError.Code(rawValue: 1650) }
    @available(*, deprecated, renamed: "validationStringTooLong")
    public static var validationStringTooLongError: CocoaError.Code { CocoaError.Code(rawValue: 1660) }
    @available(*, deprecated, renamed: "validationStringTooShort")
    public static var validationStringTooShortError: CocoaError.Code { CocoaError.Code(rawValue: 1670) }
    @available(*, deprecated, renamed: "validationStringPatternMatching")
    public static var validationStringPatternMatchingError: CocoaError.Code { CocoaError.Code(rawValue: 1680) }
    @available(*, deprecated, renamed: "managedObjectContextLocking")
    public static var managedObjectContextLockingError: CocoaError.Code { CocoaError.Code(rawValue: 132000) }
    @available(*, deprecated, renamed: "persistentStoreCoordinatorLocking")
    public static var persistentStoreCoordinatorLockingError: CocoaError.Code { CocoaError.Code(rawValue: 132010) }
    @available(*, deprecated, renamed: "managedObjectReferentialIntegrity")
    public static var managedObjectReferentialIntegrityError: CocoaError.Code { CocoaError.Code(rawValue: 133000) }
    @available(*, deprecated, renamed: "managedObjectExternalRelationship")
    public static var managedObjectExternalRelationshipError: CocoaError.Code { CocoaError.Code(rawValue: 133010) }
    @available(*, deprecated, renamed: "managedObjectMerge")
    public static var managedObjectMergeError: CocoaError.Code { CocoaError.Code(rawValue: 133020) }
    @available(*, deprecated, renamed: "managedObjectConstraintMerge")
    public static var managedObjectConstraintMergeError: CocoaError.Code { CocoaError.Code(rawValue: 133021) }
    @available(*, deprecated, renamed: "persistentStoreInvalidType")
    public static var persistentStoreInvalidTypeError: CocoaError.Code { CocoaError.Code(rawValue: 134000) }
    @available(*, deprecated, renamed: "persistentStoreTypeMismatch")
    public static var persistentStoreTypeMismatchError: CocoaError.Code { CocoaError.Code(rawValue: 134010) }
    @available(*, deprecated, renamed: "persistentStoreIncompatibleSchema")
    public static var persistentStoreIncompatibleSchemaError: CocoaError.Code { CocoaError.Code(rawValue: 134020) }
    @available(*, deprecated, renamed: "persistentStoreSave")
    public static var persistentStoreSaveError: CocoaError.Code { CocoaError.Code(rawValue: 134030) }
    @available(*, deprecated, renamed: "persistentStoreIncompleteSave")
    public static var persistentStoreIncompleteSaveError: CocoaError.Code { CocoaError.Code(rawValue: 134040) }
    @available(*, deprecated, renamed: "persistentStoreSaveConflicts")
    public static var persistentStoreSaveConflictsError: CocoaError.Code { CocoaError.Code(rawValue: 134050) }
    @available(*, deprecated, renamed: "coreData")
    public static var coreDataError: CocoaError.Code { CocoaError.Code(rawValue: 134060) }
    @available(*, deprecated, renamed: "persistentStoreOperation")
    public static var persistentStoreOperationError: CocoaError.Code { CocoaError.Code(rawValue: 134070) }
    @available(*, deprecated, renamed: "persistentStoreOpen")
    public static var persistentStoreOpenError: CocoaError.Code { CocoaError.Code(rawValue: 134080) }
    @available(*, deprecated, renamed: "persistentStoreTimeout")
    public static var persistentStoreTimeoutError: CocoaError.Code { CocoaError.Code(rawValue: 134090) }
    @available(*, deprecated, renamed: "persistentStoreUnsupportedRequestType")
    public static var persistentStoreUnsupportedRequestTypeError: CocoaError.Code { CocoaError.Code(rawValue: 134091) }
    @available(*, deprecated, renamed: "persistentStoreIncompatibleVersionHash")
    public static var persistentStoreIncompatibleVersionHashError: CocoaError.Code { CocoaError.Code(rawValue: 134100) }
    @available(*, deprecated, renamed: "migration")
    public static var migrationError: CocoaError.Code { CocoaError.Code(rawValue: 134110) }
    @available(*, deprecated, renamed: "migrationCancelled")
    public static var migrationCancelledError: CocoaError.Code { CocoaError.Code(rawValue: 134120) }
    @available(*, deprecated, renamed: "migrationMissingSourceModel")
    public static var migrationMissingSourceModelError: CocoaError.Code { CocoaError.Code(rawValue: 134130) }
    @available(*, deprecated, renamed: "migrationMissingMappingModel")
    public static var migrationMissingMappingModelError: CocoaError.Code { CocoaError.Code(rawValue: 134140) }
    @available(*, deprecated, renamed: "migrationManagerSourceStore")
    public static var migrationManagerSourceStoreError: CocoaError.Code { CocoaError.Code(rawValue: 134150) }
    @available(*, deprecated, renamed: "migrationManagerDestinationStore")
    public static var migrationManagerDestinationStoreError: CocoaError.Code { CocoaError.Code(rawValue: 134160) }
    @available(*, deprecated, renamed: "entityMigrationPolicy")
    public static var entityMigrationPolicyError: CocoaError.Code { CocoaError.Code(rawValue: 134170) }
    @available(*, deprecated, renamed: "sqlite")
    public static var sqliteError: CocoaError.Code { CocoaError.Code(rawValue: 134180) }
    @available(*, deprecated, renamed: "inferredMappingModel")
    public static var inferredMappingModelError: CocoaError.Code { CocoaError.Code(rawValue: 134190) }
    @available(*, deprecated, renamed: "externalRecordImport")
    public static var externalRecordImportError: CocoaError.Code { CocoaError.Code(rawValue: 134200) }
}
