/// A fetch index: an index the store creates over some of an entity's properties.
open class NSFetchIndexDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable once its model is frozen, like every model object.

    /// The index's name, unique within its entity.
    open var name: String
    /// The properties the index covers, in order.
    open var elements: [NSFetchIndexElementDescription]
    /// Rows for which this predicate is false are left out of the index.
    open var partialIndexPredicate: NSPredicate?
    /// The entity the index belongs to.
    open internal(set) unowned(unsafe) var entity: NSEntityDescription?

    /// Creates an index named `name` over `elements`.
    ///
    /// - Parameters:
    ///   - name: The index's name, unique within its entity.
    ///   - elements: The indexed properties in index order, or `nil` for none yet. Each element is
    ///     attached to the new index.
    public init(name: String, elements: [NSFetchIndexElementDescription]?) {
        self.name = name
        self.elements = elements ?? []
        super.init()
        for element in self.elements { element.indexDescription = self }
    }
}

/// The kind of an index element.
public enum NSFetchIndexElementType: UInt, Sendable {
    /// An ordinary B-tree index.
    case binary = 0
    /// An R-tree index, for ranges.
    case rTree = 1
}

/// One property of a fetch index and its order.
open class NSFetchIndexElementDescription: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable once its model is frozen, like every model object.

    /// The indexed property.
    open var property: NSPropertyDescription?
    /// The indexed property's name.
    open var propertyName: String?
    /// Whether the index sorts this element ascending.
    open var isAscending: Bool = true
    /// B-tree or R-tree.
    open var collationType: NSFetchIndexElementType = .binary
    /// The index this element belongs to.
    open internal(set) unowned(unsafe) var indexDescription: NSFetchIndexDescription?

    /// Creates an element over `property`.
    ///
    /// - Parameters:
    ///   - property: The property to index; its name becomes `propertyName`. The element sorts
    ///     ascending until `isAscending` is changed.
    ///   - collationType: Whether the element goes into a B-tree (`.binary`) or an R-tree (`.rTree`).
    public init(property: NSPropertyDescription, collationType: NSFetchIndexElementType) {
        self.property = property
        self.propertyName = property.name
        self.collationType = collationType
        super.init()
    }

    /// An element known only by its property name until the entity's properties exist.
    init(propertyName: String, collationType: NSFetchIndexElementType, ascending: Bool) {
        self.propertyName = propertyName
        self.collationType = collationType
        self.isAscending = ascending
        super.init()
    }
}
