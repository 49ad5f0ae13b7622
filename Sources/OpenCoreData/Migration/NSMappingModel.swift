import Foundation

/// How to migrate a store from one model to another: one `NSEntityMapping` per entity.
open class NSMappingModel: NSObject {
    /// The entity mappings, in the order they run.
    open var entityMappings: [NSEntityMapping]! = []

    /// The entity mappings by name.
    open var entityMappingsByName: [String: NSEntityMapping] {
        Dictionary((entityMappings ?? []).compactMap { mapping in mapping.name.map { ($0, mapping) } }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether the mapping was inferred: such a migration runs in place in SQL.
    var isInferred = false

    override public init() { super.init() }

    /// The mapping Core Data infers between two models for a lightweight migration.
    ///
    /// Entities and properties correspond by name, or by the destination's `renamingIdentifier`
    /// (the name in the source model, as Xcode's "Renaming ID" holds it). An entity whose version
    /// hash did not change is copied; one that changed is transformed property by property; new
    /// entities are added and missing ones removed.
    ///
    /// - Parameters:
    ///   - sourceModel: The model the store was written with.
    ///   - destinationModel: The model to migrate to.
    /// - Returns: The inferred mapping model.
    /// - Throws: `NSInferredMappingModelError` (134190), with the entity and property in its user
    ///   info and the reason, when an attribute's type changed, a relationship's destination is no
    ///   longer the same entity, or two entities of separate hierarchies would share one.
    open class func inferredMappingModel(
        forSourceModel sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel
    ) throws -> NSMappingModel {
        try MappingInference(source: sourceModel, destination: destinationModel).mappingModel()
    }

    override open var description: String {
        "<NSMappingModel: \((entityMappings ?? []).map { $0.name ?? "?" }.joined(separator: ", "))>"
    }
}
