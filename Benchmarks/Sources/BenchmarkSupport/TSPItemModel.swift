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

extension DataSet {
    /// Inserts every item into `context` through KVC, as the tutorials write it; call on the
    /// context's queue. Saving is the caller's.
    public func insertItems(into context: NSManagedObjectContext) {
        for i in 0..<count {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
            item.setValue(names[i], forKey: "name")
            item.setValue(dates[i], forKey: "createdAt")
            item.setValue(done[i], forKey: "done")
        }
    }
}

extension NSBatchUpdateRequest {
    /// The tutorials' Check All: `done = YES` on every item.
    public static func checkAllItems() -> NSBatchUpdateRequest {
        let request = NSBatchUpdateRequest(entityName: "TSPItem")
        request.propertiesToUpdate = ["done": true]
        return request
    }
}

extension NSBatchDeleteRequest {
    /// The tutorials' Clear Done, counting what it deleted.
    public static func clearDoneItems() -> NSBatchDeleteRequest {
        let fetch = NSFetchRequest<NSFetchRequestResult>(entityName: "TSPItem")
        fetch.predicate = NSPredicate(format: "done == YES")
        let request = NSBatchDeleteRequest(fetchRequest: fetch)
        request.resultType = .resultTypeCount
        return request
    }
}
