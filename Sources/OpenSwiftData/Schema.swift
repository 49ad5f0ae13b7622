import OpenCoreData

/// The models an app stores and how, as SwiftData describes them: entities with their attributes
/// and relationships, derived from the `@Model` classes.
public final class Schema: @unchecked Sendable {
    // @unchecked Sendable: immutable once made.

    /// A schema's version, as `VersionedSchema` declares it; a store records it among its
    /// version identifiers.
    public struct Version: Hashable, Sendable, CustomStringConvertible {
        public let major: Int
        public let minor: Int
        public let patch: Int

        /// Creates a version.
        ///
        /// - Parameters:
        ///   - major: The major version.
        ///   - minor: The minor version.
        ///   - patch: The patch version.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        public var description: String { "\(major).\(minor).\(patch)" }
    }

    /// The entities, one per model class, in name order.
    public let entities: [Entity]
    /// The entities by name.
    public let entitiesByName: [String: Entity]
    /// The schema's version (1.0.0 unless a versioned schema gives another).
    public let version: Version
    /// The Core Data model the schema derives, shared by every container of the schema.
    let managedObjectModel: NSManagedObjectModel
    /// The model class of each entity.
    let types: [String: any PersistentModel.Type]

    /// The schema of `types` and the models they relate to.
    ///
    /// - Parameters:
    ///   - types: Model classes; classes they relate to are included too.
    ///   - version: The schema's version.
    public convenience init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        self.init(derivation: SchemaDerivation(types), version: version)
    }

    /// The schema of `types` and the models they relate to.
    ///
    /// - Parameter types: Model classes.
    public convenience init(_ types: any PersistentModel.Type...) {
        self.init(types)
    }

    init(derivation: SchemaDerivation, version: Version) {
        self.version = version
        entities = derivation.entities
        entitiesByName = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
        types = derivation.types
        managedObjectModel = derivation.managedObjectModel(version: version)
        for entity in managedObjectModel.entities { entity.objectClassOverride = ModelManagedObject.self }
        SchemaRegistry.register(self)
    }
}
