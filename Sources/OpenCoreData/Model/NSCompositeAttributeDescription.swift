/// An attribute composed of other attributes, such as an address of a street and a city
/// (`NSCompositeAttributeDescription`, iOS 17).
///
/// An object holds a composite's value as a dictionary keyed by the element names (a nested
/// composite as a dictionary inside it); predicates and sort descriptors reach an element through
/// a namespaced key path (`"magnitude.richter > 4.5"`). A SQL store keeps one column per leaf
/// element, named after the leaf as Core Data names it, and no column for the composite itself.
open class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    // @unchecked Sendable: see NSPropertyDescription.

    /// The attributes the composite is made of; an element may itself be a composite. Binary data
    /// stored externally, `objectID` and `undefined` elements are refused when the model is used,
    /// as Core Data documents.
    open var elements: [NSAttributeDescription] = [] { willSet { assertMutable() } }

    /// A composite with no name and no elements; set both before adding it to an entity.
    override public init() {
        super.init()
        attributeType = .compositeAttributeType
        attributeValueClassName = "NSDictionary"
    }

    /// The element at a path of element names (`["location", "latitude"]`), or nil when the path
    /// names none.
    ///
    /// - Complexity: O(e·d) for e elements per level and a path of d names.
    package func element(at path: some Collection<String>) -> NSAttributeDescription? {
        guard let first = path.first, let element = elements.first(where: { $0.name == first }) else { return nil }
        if path.count == 1 { return element }
        return (element as? NSCompositeAttributeDescription)?.element(at: path.dropFirst())
    }

    /// Every leaf element (one that is not a composite) with its path of names, depth first in
    /// element order.
    package var leaves: [(path: [String], attribute: NSAttributeDescription)] {
        elements.flatMap { element -> [(path: [String], attribute: NSAttributeDescription)] in
            guard let composite = element as? NSCompositeAttributeDescription else { return [([element.name], element)] }
            return composite.leaves.map { ([element.name] + $0.path, $0.attribute) }
        }
    }
}
