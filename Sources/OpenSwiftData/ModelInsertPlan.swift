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
    }
}
