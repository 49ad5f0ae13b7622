extension Schema {
    /// One model class's entity: its attributes, relationships and uniqueness constraints.
    public final class Entity: @unchecked Sendable {
        // @unchecked Sendable: completed while the schema is derived, immutable afterwards.

        /// The entity's name: the class's name, without its module.
        public let name: String
        /// The persisted attributes, in declaration order.
        public internal(set) var attributes: [Attribute] = []
        /// The relationships, in declaration order.
        public internal(set) var relationships: [Relationship] = []
        /// Attribute names whose values are unique together, one list per constraint.
        public internal(set) var uniquenessConstraints: [[String]] = []
        /// Property names indexed together, one list per index (`#Index`).
        public internal(set) var indices: [[String]] = []

        init(name: String) { self.name = name }
    }
}
