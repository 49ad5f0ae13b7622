/// Makes a class a persistent model, as SwiftData's `@Model` does: every stored property is
/// persisted (`let` included) unless marked `@Transient`; computed properties are not.
@attached(member, names: named(schemaMetadata), named(persistentBackingData), named(_$observationRegistrar), named(init), named(_$uniquenessConstraints), named(_$indices), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelMacro")

/// Describes how a persisted property of a model is stored.
///
/// - Parameters:
///   - options: Storage options, such as `.unique` or `.externalStorage`.
///   - originalName: The property's name in the previous version of the schema, for migration.
///   - hashModifier: A string mixed into the property's version hash.
@attached(peer)
public macro Attribute(_ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil) =
    #externalMacro(module: "OpenSwiftDataMacros", type: "PropertyMarkerMacro")

/// Describes a relationship of a model: its delete rule, inverse and counts.
///
/// - Parameters:
///   - options: Relationship options (`.unique`).
///   - deleteRule: What deleting the model does to the related ones; `.nullify` by default.
///   - minimumModelCount: The fewest related models a to-many allows.
///   - maximumModelCount: The most related models a to-many allows.
///   - originalName: The relationship's name in the previous version of the schema.
///   - inverse: The relationship on the other side.
///   - hashModifier: A string mixed into the relationship's version hash.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify, minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "OpenSwiftDataMacros", type: "PropertyMarkerMacro")

/// Keeps a property of a model out of the store.
@attached(peer)
public macro Transient() = #externalMacro(module: "OpenSwiftDataMacros", type: "PropertyMarkerMacro")

/// What `@Model` puts on each persisted `var`: keeps its value in the model's backing storage.
/// Not written by hand.
///
/// - Parameter index: The property's place among the model's persisted properties.
@attached(accessor, names: named(init), named(get), named(set))
public macro _PersistedProperty(_ index: Int, of count: Int) = #externalMacro(module: "OpenSwiftDataMacros", type: "PersistedPropertyMacro")

/// Makes an actor a `ModelActor`: adds `modelContainer`, `modelExecutor` (a serial executor with
/// a context of its own) and `init(modelContainer:)`.
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "OpenSwiftDataMacros", type: "ModelActorMacro")

/// Declares properties of a model whose values are unique together, one list per constraint
/// (iOS 18): `#Unique<Person>([\.id], [\.givenName, \.familyName])`. Inserting a model whose
/// values match a stored one's updates that one at save. Read by `@Model`.
///
/// - Parameter constraints: The key paths of each constraint.
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenSwiftDataMacros", type: "SchemaListMacro")

/// Declares indexes of a model's store, one list of properties per index (iOS 18):
/// `#Index<Trip>([\.name], [\.startDate, \.endDate])`. Read by `@Model`.
///
/// - Parameter indices: The key paths of each index.
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "OpenSwiftDataMacros", type: "SchemaListMacro")
