import Foundation
import OpenCoreData

/// A `FetchDescriptor` as the Core Data fetch request that runs it: the `#Predicate` converted to
/// the NSPredicate the store compiles to SQL (issue 21's conversion, with the model's persisted
/// properties as key paths), the sort descriptors to key-based ones.
enum FetchTranslation {
    static func request<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, coordinator: NSPersistentStoreCoordinator
    ) throws -> NSFetchRequest<NSManagedObject> {
        let entityName = SchemaDerivation.entityName(of: T.self)
        let request = NSFetchRequest<NSManagedObject>(entityName: entityName)
        if let predicate = descriptor.predicate { request.predicate = try self.predicate(predicate, coordinator: coordinator) }
        var sortDescriptors: [NSSortDescriptor] = []
        for sort in descriptor.sortBy { sortDescriptors.append(try sortDescriptor(sort)) }
        request.sortDescriptors = sortDescriptors
        request.fetchLimit = max(descriptor.fetchLimit ?? 0, 0)
        request.fetchOffset = max(descriptor.fetchOffset ?? 0, 0)
        request.includesPendingChanges = descriptor.includePendingChanges
        let prefetched = descriptor.relationshipKeyPathsForPrefetching.compactMap { propertyName(of: $0) }
        if !prefetched.isEmpty { request.relationshipKeyPathsForPrefetching = prefetched }
        return request
    }

    static func predicate<T: PersistentModel>(_ predicate: Predicate<T>, coordinator: NSPersistentStoreCoordinator) throws -> NSPredicate {
        do {
            return try NSPredicate.converting(predicate, propertyName: propertyName(of:)) { constant($0, coordinator: coordinator) }
        } catch {
            throw SwiftDataError.unsupportedPredicate.because("\(error)")
        }
    }

    /// `SortDescriptor(\.name)` sorts strings in Finder's order, as in SwiftData; one made with
    /// a `String.StandardComparator` (`.lexical`, the one Linux's Foundation has) by their
    /// characters. (On Linux `SortDescriptor(\.name)` is the generic `Comparable` one, which has
    /// no string comparator: that is how the default is told apart.)
    static func sortDescriptor<T: PersistentModel>(_ descriptor: SortDescriptor<T>) throws -> NSSortDescriptor {
        guard let keyPath = descriptor.keyPath, let name = propertyName(of: keyPath) else {
            throw SwiftDataError.unsupportedSortDescriptor.because("\(descriptor) does not sort by a persisted property")
        }
        let valueType = type(of: keyPath).valueType
        let isString = valueType == String.self || valueType == String?.self
        let selector = isString && descriptor.stringComparator == nil ? "localizedStandardCompare:" : nil
        return NSSortDescriptor(key: name, ascending: descriptor.order == .forward, selector: selector)
    }

    /// The persisted property a key path of a model class names, found among the properties
    /// `@Model` listed for the key path's root.
    /// `persistentModelID` names the model itself (`SELF`).
    /// A key path into a composite value (`$0.address.city`, `SortDescriptor(\.address.city)`)
    /// names the element's path (`address.city`), which the store reads from the leaf's column.
    static func propertyName(of keyPath: AnyKeyPath) -> String? {
        guard let root = type(of: keyPath).rootType as? any PersistentModel.Type else { return compositePath(of: keyPath) }
        let info = ModelClassInfo.of(root)
        if let name = info.propertyName(of: keyPath) { return name }
        if isIdentity(keyPath, of: root) { return "self" }
        // A path through a composite property: the key path printed begins as the property's
        // does (a `@Model` property prints as its accessor, which names it uniquely), and the
        // rest names elements of the value.
        let printed = "\(keyPath)"
        for property in info.properties {
            let prefix = "\(property.keypath)."
            guard printed.hasPrefix(prefix), case .composite(let shape) = ValueCoding.strategy(for: type(of: property.keypath).valueType),
                let elements = names(printed.dropFirst(prefix.count)), shape.hasPath(elements[...])
            else { continue }
            return ([property.name] + elements).joined(separator: ".")
        }
        return nil
    }

    /// The element path a key path rooted at a composite value names (`\Address.city` is
    /// `city`), when the value's shape has it.
    private static func compositePath(of keyPath: AnyKeyPath) -> String? {
        guard case .composite(let shape) = ValueCoding.strategy(for: type(of: keyPath).rootType),
            let components = components(of: keyPath), shape.hasPath(components[...])
        else { return nil }
        return components.joined(separator: ".")
    }

    /// The property names a key path goes through, as Swift prints it (`\Address.city`); nil
    /// when it does not print as stored properties of its root (a subscript, a computed
    /// property the runtime cannot name). A name is only taken when the value's shape has an
    /// element of that name, so a type whose coding keys differ from its properties is refused,
    /// not misread.
    private static func components(of keyPath: AnyKeyPath) -> [String]? {
        let prefix = "\\\(type(of: keyPath).rootType)."
        let printed = "\(keyPath)"
        guard printed.hasPrefix(prefix) else { return nil }
        return names(printed.dropFirst(prefix.count))
    }

    /// `city` or `location.latitude` as names; nil for anything else (a computed property prints
    /// as its address).
    private static func names(_ path: Substring) -> [String]? {
        let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.isEmpty, components.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else {
            return nil
        }
        return components
    }

    private static func isIdentity<Root: PersistentModel>(_ keyPath: AnyKeyPath, of root: Root.Type) -> Bool {
        keyPath == \Root.persistentModelID
    }

    /// A captured model as the managed object it stands for (the store compares its row, an
    /// unsaved change its identity); models in a captured array likewise.
    static func constant(_ value: Any, coordinator: NSPersistentStoreCoordinator) -> Any? {
        if let identifier = value as? PersistentIdentifier { return identifier.objectID(in: coordinator) ?? NSNull() }
        if let identifiers = value as? [PersistentIdentifier] { return identifiers.compactMap { $0.objectID(in: coordinator) } }
        if let model = value as? any PersistentModel { return managedValue(of: model) }
        // An enum compares by the raw value it is stored as (Apple's SwiftData refuses enums).
        if let enumeration = value as? any RawRepresentable { return enumeration.rawValue }
        if let models = value as? [any PersistentModel] { return models.map(managedValue(of:)) }
        return value
    }

    private static func managedValue(of model: any PersistentModel) -> Any {
        guard let object = model.persistentBackingData.managedObject else { return NSNull() }
        return object
    }
}
