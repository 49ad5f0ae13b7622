extension Schema {
    /// One persisted property of a model class, as `@Model` lists it in `schemaMetadata`.
    public struct PropertyMetadata: @unchecked Sendable {
        // @unchecked Sendable: `defaultValue` and `metadata` are a property's initial value and
        // its `@Attribute`/`@Relationship` description, read only when the schema is derived.

        /// The property's name.
        public let name: String
        /// The key path from the model class to the property.
        public let keypath: AnyKeyPath
        /// The property's initial value, if it has one.
        public let defaultValue: Any?
        /// A `Schema.Attribute` or `Schema.Relationship` from the property's macro, if any.
        public let metadata: Any?

        /// Describes a persisted property.
        ///
        /// - Parameters:
        ///   - name: The property's name.
        ///   - keypath: The key path to it.
        ///   - defaultValue: Its initial value.
        ///   - metadata: What `@Attribute` or `@Relationship` says of it.
        public init(name: String, keypath: AnyKeyPath, defaultValue: Any?, metadata: Any?) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
        }
    }
}
