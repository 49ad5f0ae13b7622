extension Schema {
    /// A relationship of an entity; `@Relationship(…)` makes one with its settings.
    public final class Relationship: @unchecked Sendable {
        // @unchecked Sendable: completed while the schema is derived, immutable afterwards.

        /// A relationship option.
        public struct Option: Hashable, Sendable {
            let name: String
            /// The related models are unique (recorded).
            public static let unique = Option(name: "unique")
        }

        /// What deleting a model does to the models it relates to.
        public enum DeleteRule: Hashable, Sendable {
            /// Nothing: the related models keep a reference to the deleted one.
            case noAction
            /// The related models lose their reference to it.
            case nullify
            /// The related models are deleted too.
            case cascade
            /// The model cannot be deleted while it relates to any.
            case deny
        }

        /// The relationship's name.
        public internal(set) var name: String = ""
        /// The options `@Relationship` gave.
        public let options: [Option]
        /// What deleting the model does to the related ones.
        public let deleteRule: DeleteRule
        /// The fewest related models (0: no minimum).
        public let minimumModelCount: Int?
        /// The most related models (0: no maximum).
        public let maximumModelCount: Int?
        /// The name in the previous schema version.
        public let originalName: String?
        /// The inverse, as `@Relationship(inverse:)` gave it.
        public let inverseKeyPath: AnyKeyPath?
        /// A string mixed into the version hash.
        public let hashModifier: String?
        /// The related entity's name.
        public internal(set) var destination: String = ""
        /// The inverse relationship's name, given or inferred.
        public internal(set) var inverseName: String?
        /// Whether the relationship is optional (a to-one declared optional).
        public internal(set) var isOptional = false
        /// Whether it relates to one model, not an array of them.
        public internal(set) var isToOneRelationship = true

        /// What `@Relationship(…)` says of a property.
        ///
        /// - Parameters:
        ///   - options: Relationship options.
        ///   - deleteRule: What deleting the model does to the related ones.
        ///   - minimumModelCount: The fewest related models.
        ///   - maximumModelCount: The most related models.
        ///   - originalName: The name in the previous schema version.
        ///   - inverse: The relationship on the other side.
        ///   - hashModifier: A string mixed into the version hash.
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
            originalName: String? = nil, inverse: AnyKeyPath? = nil, hashModifier: String? = nil
        ) {
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
        }
    }
}
