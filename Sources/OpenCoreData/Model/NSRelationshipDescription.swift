/// A relationship: a property whose value is another object (to-one) or a set of objects (to-many).
open class NSRelationshipDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: see NSPropertyDescription.

    /// The entity of the objects this relationship points to.
    open unowned(unsafe) var destinationEntity: NSEntityDescription? { willSet { assertMutable() } }
    /// The relationship on the destination that points back.
    open unowned(unsafe) var inverseRelationship: NSRelationshipDescription? { willSet { assertMutable() } }
    /// The most destination objects allowed; 1 makes a to-one, 0 (the default, as in Core Data)
    /// means no limit.
    open var maxCount: Int = 0 { willSet { assertMutable() } }
    /// The fewest destination objects allowed when the relationship is not optional.
    open var minCount: Int = 0 { willSet { assertMutable() } }
    /// What deleting the source does to the destination.
    open var deleteRule: NSDeleteRule = .nullifyDeleteRule { willSet { assertMutable() } }
    /// Whether a to-many relationship keeps its objects in order (an `NSOrderedSet`).
    open var isOrdered: Bool = false { willSet { assertMutable() } }

    /// Whether the relationship holds a set of objects rather than one.
    open var isToMany: Bool { maxCount != 1 }

    /// Whether a non-optional to-many may be empty. SwiftData derives an array of models as a
    /// to-many that is not optional (so it hashes as Apple's) yet takes an empty array.
    package var allowsEmptyWhenRequired = false

    /// Whether the relationship and its inverse (if any) are both to-many: its pairs belong to
    /// neither side's objects alone.
    package var isManyToMany: Bool { isToMany && inverseRelationship?.isToMany != false }

    /// Names kept by the XML loader until every entity exists.
    var destinationEntityName: String?
    var inverseRelationshipName: String?

    /// Creates a to-many relationship with no destination, no inverse and the nullify delete rule,
    /// to be configured before its model is used by a coordinator.
    override public init() { super.init() }
}
