import Foundation

/// The Core Data key path a Swift key path of a managed object class stands for:
/// `\Item.createdAt` → `"createdAt"`, `\Item.list?.name` → `"list.name"`. Apple reads it from the
/// Objective-C property behind the key path; Linux has none, so a key path is read once on a
/// probe, an object of the root class outside any context, whose accessors note the properties
/// they are asked for (a to-one relationship answers with a probe of its destination, so that a
/// path goes on through it). A key path through anything else than managed properties (a stored
/// Swift property, a computed one that reads two properties) has no name.
enum ManagedKeyPathNames {
    private static let names = Locked<[AnyKeyPath: String]>([:])

    /// The dotted property names `keyPath` reads, or nil.
    ///
    /// - Parameter keyPath: A key path whose root is an `NSManagedObject` subclass of a loaded model.
    /// - Returns: The names, or nil when the key path does not read managed properties only.
    static func name(of keyPath: AnyKeyPath) -> String? {
        if let known = names.withLock({ $0[keyPath] }) { return known }
        guard let name = read(keyPath) else { return nil }
        names.withLock { $0[keyPath] = name }
        return name
    }

    private static func read(_ keyPath: AnyKeyPath) -> String? {
        guard let rootType = type(of: keyPath).rootType as? NSManagedObject.Type,
            let (model, entity) = NSManagedObjectModel.modelAndEntity(forClass: rootType)
        else { return nil }
        return withExtendedLifetime(model) { read(keyPath, on: rootType, entity) }
    }

    private static func read(_ keyPath: AnyKeyPath, on rootType: NSManagedObject.Type, _ entity: NSEntityDescription) -> String? {
        let recorder = KeyPathRecorder()
        let probe = rootType.init(_entityClassOf: entity, insertInto: nil)
        recorder.expected = ObjectIdentifier(probe)
        KeyPathRecorder.current = recorder
        defer { KeyPathRecorder.current = nil }
        _ = withExtendedLifetime(probe) { probe[keyPath: keyPath] }
        // The last property's declared type (or its optional, after `?.`) must be the key path's:
        // a computed property that reads one property and returns something else is not it.
        guard recorder.isValid, !recorder.keys.isEmpty,
            recorder.lastTypes.contains(where: { $0 == type(of: keyPath).valueType })
        else { return nil }
        return recorder.keys.joined(separator: ".")
    }
}

/// What the accessors of a probe note while a key path is read on this thread.
final class KeyPathRecorder {
    private static let threadKey = "OpenCoreData.KeyPathRecorder"

    /// The recorder reading a key path on this thread. Asked only by objects outside any context,
    /// so that objects in use never pay for the lookup.
    static var current: KeyPathRecorder? {
        get { Thread.current.threadDictionary[threadKey] as? KeyPathRecorder }
        set { Thread.current.threadDictionary[threadKey] = newValue }
    }

    private(set) var keys: [String] = []
    /// The declared type of the last property read, and its optional.
    private(set) var lastTypes: [Any.Type] = []
    /// The object the next property must be read from: the probe, then the probe a to-one
    /// relationship answered with. Anything else read makes the key path unnamed.
    var expected: ObjectIdentifier?
    private(set) var isValid = true
    /// Probes handed out for to-one relationships, kept alive until the key path is read.
    private var probes: [NSManagedObject] = []

    /// Notes that `key` of `object` was read, by an accessor of one of `types`.
    func record(_ key: String, of object: NSManagedObject, types: [Any.Type]) {
        guard isValid, expected == ObjectIdentifier(object) else {
            isValid = false
            return
        }
        keys.append(key)
        lastTypes = types
        expected = nil
    }

    /// A probe of `relationship`'s destination, which the path's next property is read from.
    func destinationProbe(of relationship: NSRelationshipDescription) -> NSManagedObject? {
        guard isValid, let destination = relationship.destinationEntity, !relationship.isToMany else { return nil }
        let probe = destination.managedObjectClass.init(_entityClassOf: destination, insertInto: nil)
        probes.append(probe)
        expected = ObjectIdentifier(probe)
        return probe
    }
}

extension NSManagedObject {
    /// The recorder, when this object is a probe reading a key path: only an object outside any
    /// context can be one.
    @inline(__always)
    var keyPathRecorder: KeyPathRecorder? {
        contextToken == nil ? KeyPathRecorder.current : nil
    }
}
