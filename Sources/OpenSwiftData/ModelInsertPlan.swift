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
    /// is an attribute of the entity and kept by the model's backing. A relationship needs the
    /// context (its models join it), and a `let` keeps its value in the model itself.
    let startsUnattached: Bool

    /// The plan for inserting models of `model`'s class as objects of `entity`.
    ///
    /// - Parameters:
    ///   - info: What the class persists.
    ///   - entity: The entity of the context's model for the class.
    ///   - model: A model of the class, whose stored properties show which values it keeps itself.
    init(info: ModelClassInfo, entity: NSEntityDescription, model: any PersistentModel) {
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
        // A persisted `var` is stored as `_name` beside its accessors; a stored property of the
        // persisted name is a `let`.
        var stored: Set<String> = []
        var mirror: Mirror? = Mirror(reflecting: model)
        while let current = mirror {
            stored.formUnion(current.children.compactMap(\.label))
            mirror = current.superclassMirror
        }
        startsUnattached = properties.allSatisfy { property in
            byName[property.name] is NSAttributeDescription && !stored.contains(property.name)
        }
    }
}
