import OpenCoreData
let dir = URL(fileURLWithPath: CommandLine.arguments[1])
let item = NSEntityDescription()
item.name = "TSPItem"
let name = NSAttributeDescription(); name.name = "name"; name.attributeType = .stringAttributeType
let created = NSAttributeDescription(); created.name = "createdAt"; created.attributeType = .dateAttributeType
let done = NSAttributeDescription(); done.name = "done"; done.attributeType = .booleanAttributeType
item.properties = [name, created, done]
let model = NSManagedObjectModel(); model.entities = [item]
let psc = NSPersistentStoreCoordinator(managedObjectModel: model)
try psc.addPersistentStore(type: .sqlite, at: dir.appendingPathComponent("x.sqlite"))
let ctx = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
ctx.persistentStoreCoordinator = psc
try ctx.performAndWait {
  let o = NSManagedObject(entity: item, insertInto: ctx)
  o.setValue("hello", forKey: "name"); o.setValue(Date(), forKey: "createdAt")
  try ctx.save()
  print(o.objectID)
}
