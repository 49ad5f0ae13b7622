import Foundation
import Observation
import OpenCoreData

/// A class whose instances SwiftData stores: what `@Model` makes of a class. The macro writes the
/// requirements; the extensions give every model its identity, its context and its state.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable, _RelationshipDestination {
    /// Makes a model standing for a stored object, without the class's own initializers (a
    /// fetch makes its models this way).
    ///
    /// - Parameter backingData: Where the model's values live.
    init(backingData: _ModelBacking)

    /// Makes the model for a managed object that has none (a fetched one, a relationship's
    /// destination): `init(backingData:)` without the backing, which the model's initial
    /// `persistentBackingData` takes from the thread's pending object (`@Model` writes it).
    ///
    /// - Parameter materializing: Made only by OpenSwiftData, as it makes a model.
    init(_materializing materializing: _ModelMaterializing)

    /// Where the model's values live: in the model before it is inserted, in its context after.
    var persistentBackingData: _ModelBacking { get set }

    /// The persisted properties, as `@Model` lists them.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }

    /// The properties unique together, one list per `#Unique` constraint (`@Model` writes it).
    static var _$uniquenessConstraints: [[AnyKeyPath]] { get }
    /// The properties indexed together, one list per `#Index` index (`@Model` writes it).
    static var _$indices: [[AnyKeyPath]] { get }
}

/// What only OpenSwiftData passes to `PersistentModel.init(_materializing:)`, as it makes the
/// model for a managed object.
public struct _ModelMaterializing {
    init() {}
}

extension PersistentModel {
    /// For a class written without `@Model`: made by its `init(backingData:)`, given its backing
    /// after (`ModelMaterialization.make`), which also treats it as possibly seen by other
    /// threads (its own code runs).
    ///
    /// - Parameter materializing: Made only by OpenSwiftData, as it makes a model.
    public init(_materializing materializing: _ModelMaterializing) {
        ModelMaterialization.disown()
        self.init(backingData: .detached())
    }

    public static var _$uniquenessConstraints: [[AnyKeyPath]] { [] }
    public static var _$indices: [[AnyKeyPath]] { [] }

    /// The model's identity, the same in every context and across launches once it is saved
    /// (a model not yet saved has a temporary one, as in SwiftData).
    public var persistentModelID: PersistentIdentifier {
        guard let object = persistentBackingData.managedObject else { return PersistentIdentifier(unattached: self) }
        return PersistentIdentifier(object.objectID)
    }

    /// The context the model is in, nil before it is inserted or after it is deleted and saved.
    public var modelContext: ModelContext? {
        (persistentBackingData.managedObject?.managedObjectContext as? ModelObjectContext)?.owner
    }

    /// Whether the model has changes not yet saved (a new model has).
    public var hasChanges: Bool {
        guard let object = persistentBackingData.managedObject else { return true }
        return object.hasChanges
    }

    /// Whether the model is deleted from its context (and its row at the next save).
    public var isDeleted: Bool { persistentBackingData.managedObject?.isDeleted ?? false }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension PersistentModel where ID == PersistentIdentifier {
    /// The model's identity: its `persistentModelID`, unless the class declares an `id` of its own.
    public var id: PersistentIdentifier { persistentModelID }
}
