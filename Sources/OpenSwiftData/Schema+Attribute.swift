extension Schema {
    /// A persisted attribute of an entity; `@Attribute(…)` makes one with its options.
    public final class Attribute: @unchecked Sendable {
        // @unchecked Sendable: completed while the schema is derived, immutable afterwards.

        /// How an attribute is stored.
        public struct Option: Hashable, Sendable {
            let name: String

            /// The attribute's value is unique among the entity's models: inserting a model with
            /// a value already stored updates that model (an upsert).
            public static let unique = Option(name: "unique")
            /// Large values are kept in files beside the store.
            public static let externalStorage = Option(name: "externalStorage")
            /// The value is kept in the history when the model is deleted.
            public static let preserveValueOnDeletion = Option(name: "preserveValueOnDeletion")
            /// Indexed by Spotlight (recorded; no effect off Apple platforms).
            public static let spotlight = Option(name: "spotlight")
            /// Encrypted in CloudKit (recorded; no effect off Apple platforms).
            public static let allowsCloudEncryption = Option(name: "allowsCloudEncryption")
            /// Kept in memory only, never saved.
            public static let ephemeral = Option(name: "ephemeral")
        }

        /// The attribute's name.
        public internal(set) var name: String = ""
        /// The options `@Attribute` gave.
        public let options: [Option]
        /// The name in the previous schema version.
        public let originalName: String?
        /// A string mixed into the version hash.
        public let hashModifier: String?
        /// The Swift type of the value (optional unwrapped).
        public internal(set) var valueType: Any.Type = Any.self
        /// The property's initial value.
        public internal(set) var defaultValue: Any?
        /// Whether the property is optional.
        public internal(set) var isOptional = false
        /// Whether `.unique` is among the options.
        public var isUnique: Bool { options.contains(.unique) }

        /// What `@Attribute(…)` says of a property.
        ///
        /// - Parameters:
        ///   - options: Storage options.
        ///   - originalName: The property's name in the previous schema version.
        ///   - hashModifier: A string mixed into the version hash.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.options = options
            self.originalName = originalName
            self.hashModifier = hashModifier
        }
    }
}
