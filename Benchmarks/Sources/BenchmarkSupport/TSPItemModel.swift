import OpenCoreData

/// The entity every benchmark case reads and writes.
public enum TSPItemModel {
    /// The tutorials' model, built in code: TSPItem(createdAt: Date, done: Boolean, name: String),
    /// in the order of `TSPItem.xcdatamodeld`, from which the typed `TSPItem` class is generated.
    public static func make() -> NSManagedObjectModel {
        func attribute(_ name: String, _ type: NSAttributeType, defaultValue: Any? = nil) -> NSAttributeDescription {
            let attribute = NSAttributeDescription()
            attribute.name = name
            attribute.attributeType = type
            attribute.isOptional = true
            attribute.defaultValue = defaultValue
            return attribute
        }
        let item = NSEntityDescription()
        item.name = "TSPItem"
        item.managedObjectClassName = "TSPItem"
        item.properties = [
            attribute("createdAt", .dateAttributeType),
            attribute("done", .booleanAttributeType, defaultValue: false),
            attribute("name", .stringAttributeType),
        ]
        let model = NSManagedObjectModel()
        model.entities = [item]
        return model
    }
}
