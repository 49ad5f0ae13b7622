import Foundation

/// What a migration manager does with the instances of one entity mapping, in three passes:
/// create destination instances, then their relationships, then validate. Subclass it to move
/// data a mapping's expressions cannot (one object per distinct value, values computed in code),
/// and name the subclass in the entity mapping's `entityMigrationPolicyClassName`.
///
/// Linux has no class lookup by unqualified name: a subclass is found by its `Module.Class` name,
/// or by the name it was registered under with `register(_:forClassName:)` (OpenCoreData
/// addition), which is how a name such as Xcode's `$(PRODUCT_MODULE_NAME).Policy` is resolved.
open class NSEntityMigrationPolicy: NSObject {
    override public required init() { super.init() }

    /// Called before the first pass over `mapping`.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping about to run.
    ///   - manager: The migration manager.
    /// - Throws: An error to stop the migration.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Creates the destination instances of `sInstance`: by default one instance of the
    /// destination entity, its attributes set from the attribute mappings' value expressions,
    /// associated with `sInstance` for the later passes.
    ///
    /// - Parameters:
    ///   - sInstance: A source instance the mapping's source expression selected.
    ///   - mapping: The entity mapping.
    ///   - manager: The migration manager.
    /// - Throws: An error to stop the migration.
    open func createDestinationInstances(forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        guard let entityName = mapping.destinationEntityName else { return }
        let destination = NSEntityDescription.insertNewObject(forEntityName: entityName, into: manager.destinationContext)
        for property in mapping.attributeMappings ?? [] {
            guard let name = property.name, let expression = property.valueExpression else { continue }
            destination.setValue(manager.evaluate(expression, source: sInstance, mapping: mapping, property: property, policy: self), forKey: name)
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Called after the first pass over `mapping`.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping.
    ///   - manager: The migration manager.
    /// - Throws: An error to stop the migration.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Sets the relationships of `dInstance`: by default each relationship mapping's value
    /// expression, evaluated with `$source` the instance `dInstance` was made from.
    ///
    /// - Parameters:
    ///   - dInstance: A destination instance the first pass created for the mapping.
    ///   - mapping: The entity mapping.
    ///   - manager: The migration manager.
    /// - Throws: An error to stop the migration.
    open func createRelationships(forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager) throws {
        guard let source = manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [dInstance]).first else { return }
        for property in mapping.relationshipMappings ?? [] {
            guard let name = property.name, let expression = property.valueExpression,
                let relationship = dInstance.entity.relationshipsByName[name]
            else { continue }
            let value = manager.evaluate(expression, source: source, mapping: mapping, property: property, policy: self)
            let objects = value.flatMap(ValueComparison.collectionElements)?.compactMap { $0 as? NSManagedObject }
            if relationship.isToMany {
                let related = objects ?? (value as? NSManagedObject).map { [$0] } ?? []
                dInstance.setValue(relationship.isOrdered ? NSOrderedSet(array: related) : NSSet(array: related), forKey: name)
            } else {
                dInstance.setValue(objects?.first ?? value as? NSManagedObject, forKey: name)
            }
        }
    }

    /// Called after the second pass over `mapping`.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping.
    ///   - manager: The migration manager.
    /// - Throws: An error to stop the migration.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// The third pass: checks of the app's own over the destination instances (the destination
    /// context's save validates the model's rules).
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping.
    ///   - manager: The migration manager.
    /// - Throws: An error to stop the migration.
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called after the last pass over `mapping`.
    ///
    /// - Parameters:
    ///   - mapping: The entity mapping.
    ///   - manager: The migration manager.
    /// - Throws: An error to stop the migration.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// The value of `FUNCTION($entityPolicy, "selector", arguments…)` in a mapping's expression,
    /// which Apple's runtime answers by sending the message to the policy. OpenCoreData addition:
    /// override it to answer the selectors a mapping model uses; the default answers none (nil).
    ///
    /// - Parameters:
    ///   - selector: The selector name, as the mapping model spells it (`"makeName:"`).
    ///   - arguments: The arguments' values.
    /// - Returns: The function's value.
    open func value(forFunction selector: String, arguments: [Any?]) -> Any? { nil }

    // MARK: Finding policies by name

    /// Registers a policy class under `className`, the name an entity mapping's
    /// `entityMigrationPolicyClassName` gives it. OpenCoreData addition: Linux cannot look up a
    /// class by a name that is not `Module.Class`.
    ///
    /// - Parameters:
    ///   - type: The policy class.
    ///   - className: The name mapping models use for it; `Module.Class` by default.
    public static func register(_ type: NSEntityMigrationPolicy.Type, forClassName className: String? = nil) {
        let name = className ?? String(reflecting: type)
        registered.withLock { $0[name] = type }
    }

    private static let registered = Locked<[String: NSEntityMigrationPolicy.Type]>([:])

    /// The policy class named `className`: registered, or found by its `Module.Class` name.
    static func policyClass(named className: String) -> NSEntityMigrationPolicy.Type? {
        if let type = registered.withLock({ $0[className] }) { return type }
        return NSClassFromString(className) as? NSEntityMigrationPolicy.Type
    }
}

extension NSEntityMigrationPolicy: ExpressionMessageReceiver {
    func answer(_ selector: String, _ arguments: [Any?]) -> Any?? { .some(value(forFunction: selector, arguments: arguments)) }
}
