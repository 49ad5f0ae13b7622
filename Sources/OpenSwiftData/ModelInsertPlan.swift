import OpenCoreData

/// How a context copies a new model's values into its managed object, worked out once per model
/// class and context: which properties are attributes and which relationships (an insert asking
/// the entity for each property would rebuild its dictionaries every time).
struct ModelInsertPlan {
    enum Kind {
        case attribute
        case toOne
        case toMany
    }

    struct Property {
        let name: String
        let keypath: AnyKeyPath
        /// The property's place among the model's persisted properties, the slot hint
        /// `@Model`'s accessors give too.
        let index: Int
        let kind: Kind
    }

    let entity: NSEntityDescription
    let properties: [Property]
    /// Whether new models of the class can start unattached (`_ModelBacking.unattached`), their
    /// values written into their managed object as they are set: when every persisted property
    /// is an attribute the model's backing keeps (a `var`: a `let` keeps its value in the model
    /// itself) of a type Core Data holds as it is or by raw value. A relationship needs the
    /// context (its models join it); a value encoded (a composite, JSON) or kept by reference (a
    /// transformable) is held as given until the insert, as SwiftData holds it.
    let startsUnattached: Bool

    /// The plan for inserting models of a class as objects of `entity`.
    ///
    /// - Parameters:
    ///   - info: What the class persists.
    ///   - entity: The entity of the context's model for the class.
    init(info: ModelClassInfo, entity: NSEntityDescription) {
        self.entity = entity
        let byName = entity.propertiesByName
        properties = info.properties.enumerated().map { index, property in
            let kind: Kind =
                switch byName[property.name] {
                case let relationship as NSRelationshipDescription: relationship.isToMany ? .toMany : .toOne
                default: .attribute
                }
            return Property(name: property.name, keypath: property.keypath, index: index, kind: kind)
        }
        startsUnattached = properties.allSatisfy { property in
            guard byName[property.name] is NSAttributeDescription, Self.isSettable(property.keypath) else { return false }
            switch ValueCoding.strategy(for: type(of: property.keypath).valueType) {
            case .direct, .rawValue: return true
            case .composite, .json, .transformable: return false
            }
        }
    }

    /// Whether `keyPath` can set its value: a `var` of a class (`@Model`'s persisted `var`s are
    /// computed properties with a setter), not a `let`.
    private static func isSettable(_ keyPath: AnyKeyPath) -> Bool {
        func root<Root>(_: Root.Type) -> Bool {
            func value<Value>(_: Value.Type) -> Bool { keyPath is ReferenceWritableKeyPath<Root, Value> }
            return _openExistential(type(of: keyPath).valueType, do: value)
        }
        return _openExistential(type(of: keyPath).rootType, do: root)
    }
}
