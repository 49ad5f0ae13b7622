import OpenCoreData

/// The Core Data configuration each of a container's `ModelConfiguration`s keeps its models in.
///
/// A configuration given a schema of its own keeps only that schema's models, in its own store:
/// SwiftData's way of putting some models in one file and the rest in another (a cache apart
/// from the app's data, say). The container's Core Data model gets a configuration of those
/// entities and the store opens with it, so that the coordinator puts each new model's row in
/// the first store whose configuration has its entity, as Core Data does. A configuration
/// without a schema, or with the container's whole schema, keeps every model (Core Data's
/// default configuration).
enum StoreConfigurations {
    /// The Core Data configuration name for each of `configurations`, in order: nil for every
    /// entity. Configurations of their own are added to `schema`'s model.
    ///
    /// - Parameters:
    ///   - configurations: The container's configurations.
    ///   - schema: The container's schema, whose model is not yet in use by this container.
    /// - Returns: One name or nil per configuration.
    /// - Throws: `SwiftDataError.loadIssueModelContainer` when a configuration's schema has a model
    ///   the container's does not, or when the container's schema is already in use by another
    ///   container that stores a configuration of that name with other models.
    /// - Complexity: O(*c* × *e*) for *c* configurations and *e* entities.
    static func names(for configurations: [ModelConfiguration], in schema: Schema) throws -> [String?] {
        let model = schema.managedObjectModel
        let every = Set(schema.entities.map(\.name))
        var names: [String?] = []
        var taken: Set<String> = []
        for configuration in configurations {
            guard let own = configuration.schema.map({ Set($0.entities.map(\.name)) }), own != every else {
                names.append(nil)
                continue
            }
            if let stranger = own.subtracting(every).sorted().first {
                throw SwiftDataError.loadIssueModelContainer.because(
                    "The configuration '\(configuration.name)' stores \(stranger), which the container's schema does not have.")
            }
            // Two configurations may share a name (both unnamed, say); their stores still keep
            // their own models.
            var name = configuration.name
            var suffix = 2
            while taken.contains(name) {
                name = "\(configuration.name) \(suffix)"
                suffix += 1
            }
            taken.insert(name)
            try define(name, entities: own, in: model)
            names.append(name)
        }
        return names
    }

    /// Gives `model` the configuration `name` of the entities named `entities`; a model already in
    /// use (the schema of another container too) must have it already.
    private static func define(_ name: String, entities: Set<String>, in model: NSManagedObjectModel) throws {
        if let existing = model.entities(forConfigurationName: name), Set(existing.compactMap(\.name)) == entities { return }
        guard !model.isFrozen else {
            throw SwiftDataError.loadIssueModelContainer.because(
                "The schema is in use by another container whose configuration '\(name)' stores other models; give this container a schema of its own.")
        }
        model.setEntities(entities.sorted().compactMap { model.entitiesByName[$0] }, forConfigurationName: name)
    }
}
