/// An attribute whose value the store computes from other values when the object is saved
/// (`NSDerivedAttributeDescription`): a to-one key path (`author.name`), a function of one
/// (`canonical:(name)`, `lowercase:`, `uppercase:`), an aggregate of a to-many relationship
/// (`pages.@count`, `@sum`), or the time of the save (`now()`).
///
/// The SQLite store keeps the value up to date with the triggers Core Data creates, so that a
/// store moves between platforms with its derivations; the in-memory store computes it at save.
/// A context sees the new values of its objects once the save that changed them is done.
open class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
    // @unchecked Sendable: see NSPropertyDescription.

    /// The expression the value is computed from, evaluated with the object as `SELF`.
    open var derivationExpression: NSExpression? { willSet { assertMutable() } }

    /// A derived attribute with no name, type or expression; set all three before adding it to an
    /// entity.
    override public init() { super.init() }
}
