import OpenCoreData

extension NSManagedObjectModel {
    /// The Core Data model SwiftData derives from model classes, so that a Core Data stack
    /// opens the store a `ModelContainer` of the same classes writes.
    ///
    /// - Parameter types: Model classes; the classes they relate to are included.
    /// - Returns: A new model with an entity per class, and the version identifier 1.0.0.
    public static func makeManagedObjectModel(for types: [any PersistentModel.Type]) -> NSManagedObjectModel? {
        SchemaDerivation(types).managedObjectModel(version: Schema.Version(1, 0, 0))
    }
}
