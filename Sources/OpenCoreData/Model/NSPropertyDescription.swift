/// A property of an entity: an attribute or a relationship.
///
/// Like Core Data's, a description may be edited only until its model is used by a coordinator;
/// after that it is immutable and may be read from any thread.
open class NSPropertyDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: every stored property is written only before the model is frozen
    // (`NSManagedObjectModel.freeze()` checks it), and only read afterwards. For the same reason
    // the fields read on every value access skip dynamic exclusivity checks.

    /// The entity that declares this property.
    public internal(set) unowned(unsafe) var entity: NSEntityDescription!

    /// The property's name, unique within its entity and its entity's ancestors.
    @exclusivity(unchecked) open var name: String = "" { willSet { assertMutable() } }
    /// Whether the property may be nil when the object is saved.
    @exclusivity(unchecked) open var isOptional: Bool = true { willSet { assertMutable() } }
    /// A transient property is kept in memory only and has no column in the store.
    @exclusivity(unchecked) open var isTransient: Bool = false { willSet { assertMutable() } }
    /// A read-only property may not be changed through `setValue(_:forKey:)`.
    @exclusivity(unchecked) open var isReadOnly: Bool = false { willSet { assertMutable() } }
    /// Free-form information attached to the property in the model.
    open var userInfo: [AnyHashable: Any]? { willSet { assertMutable() } }
    /// A string mixed into the version hash to force a new version without a schema change.
    open var versionHashModifier: String? { willSet { assertMutable() } }
    /// The old name of a renamed property, for lightweight migration.
    open var renamingIdentifier: String? { willSet { assertMutable() } }
    /// Deprecated in Core Data in favour of fetch indexes; kept for models that set it.
    open var isIndexed: Bool = false { willSet { assertMutable() } }
    /// Whether Spotlight indexes the property; recorded, has no effect on Linux.
    open var isIndexedBySpotlight: Bool = false
    /// Recorded for compatibility; external records are an Apple-only feature.
    open var isStoredInExternalRecord: Bool = false

    /// The predicates a value must satisfy, and the warnings reported when one does not.
    open private(set) var validationPredicates: [NSPredicate] = []
    /// The warnings matching `validationPredicates`, one each.
    open private(set) var validationWarnings: [Any] = []

    /// Sets the validation predicates and their warnings together.
    ///
    /// - Parameters:
    ///   - predicates: The predicates a value must satisfy, evaluated with the value as `SELF`;
    ///     `nil` removes them all.
    ///   - warnings: The message for each predicate, matched by position; `nil` for none.
    open func setValidationPredicates(_ predicates: [NSPredicate]?, withValidationWarnings warnings: [String]?) {
        assertMutable()
        validationPredicates = predicates ?? []
        validationWarnings = warnings ?? []
    }

    /// The position of this property's value in the slot array of every object of its entity
    /// hierarchy; assigned when the model is frozen. Read on every value access, so without the
    /// dynamic exclusivity check (a twelfth of a KVC set's time, for a field written only before
    /// the model is used).
    @exclusivity(unchecked) package var slot: Int = -1

    /// Creates a property with an empty name, optional and persistent, to be configured before its
    /// model is used by a coordinator.
    override public init() { super.init() }

    /// The SHA-256 hash Core Data uses to tell model versions apart.
    open var versionHash: Data { VersionHasher.hash(of: self) }

    func assertMutable() {
        precondition(
            entity?.managedObjectModel?.isFrozen != true,
            "Can't modify property '\(name)' of an NSManagedObjectModel that is in use by a coordinator.")
    }

    override open var description: String {
        "(\(Swift.type(of: self))) \(name), isOptional \(isOptional), isTransient \(isTransient)"
    }
}
