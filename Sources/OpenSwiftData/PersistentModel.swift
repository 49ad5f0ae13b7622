/// A class whose instances SwiftData stores: what `@Model` makes of a class.
public protocol PersistentModel: AnyObject {
    /// The persisted properties, as `@Model` lists them.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }
}
