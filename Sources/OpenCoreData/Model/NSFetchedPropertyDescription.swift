/// A property whose value is the result of a fetch request, run when the property is first read
/// and kept until the object is refreshed (`NSFetchedPropertyDescription`): a weak, one-way
/// relationship, such as an author's recent books.
///
/// The request's predicate may name the object as `$FETCH_SOURCE` and the property as
/// `$FETCHED_PROPERTY` (`$FETCHED_PROPERTY.userInfo.minimumYear`). A fetched property is not
/// stored: it has no column and takes no part in the entity's version hash.
open class NSFetchedPropertyDescription: NSPropertyDescription, @unchecked Sendable {
    // @unchecked Sendable: see NSPropertyDescription.

    /// The request that gives the property's value; its entity is the one fetched.
    open var fetchRequest: NSFetchRequest<NSFetchRequestResult>? { willSet { assertMutable() } }

    /// Always true: the value is fetched, never saved.
    override open var isTransient: Bool {
        get { true }
        set {}
    }

    /// A fetched property with no name and no request; set both before adding it to an entity.
    override public init() { super.init() }
}

// `$FETCHED_PROPERTY.userInfo.key` and `$FETCHED_PROPERTY.name` in a fetched property's predicate.
extension NSPropertyDescription: KeyValueReadable {
    func readValue(forKey key: String) -> Any? {
        switch key {
        case "name": name
        case "userInfo":
            userInfo.map { info in
                Dictionary(info.compactMap { entry in (entry.key.base as? String).map { ($0, entry.value) } }, uniquingKeysWith: { first, _ in first })
            }
        case "isOptional": isOptional
        case "entity": entity
        default: nil
        }
    }
}
