import OpenCoreData

/// What inserting, fetching and naming need of a model class, read once per class: building
/// `schemaMetadata` evaluates every property's initial value (a `Date()`, a `UUID()`) and naming
/// the entity formats the type's name, neither of which an insert or a fetch should repeat.
struct ModelClassInfo: @unchecked Sendable {
    // @unchecked Sendable: names and key paths to stored properties, immutable once read.
    let entityName: String
    /// The persisted properties' names and key paths, in declaration order.
    let properties: [(name: String, keypath: AnyKeyPath)]

    private static let known = Locked<[ObjectIdentifier: ModelClassInfo]>([:])

    static func of(_ type: any PersistentModel.Type) -> ModelClassInfo {
        let key = ObjectIdentifier(type)
        if let info = known.withLock({ $0[key] }) { return info }
        let info = ModelClassInfo(entityName: String(describing: type), properties: type.schemaMetadata.map { ($0.name, $0.keypath) })
        known.withLock { $0[key] = info }
        return info
    }

    /// The name of the persisted property `keyPath` reads, if it is one.
    func propertyName(of keyPath: AnyKeyPath) -> String? {
        properties.first { $0.keypath == keyPath }?.name
    }
}
