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
    ///   - migrating: Whether the container has a migration plan.
    /// - Returns: One name or nil per configuration.
    /// - Throws: `SwiftDataError.loadIssueModelContainer` when a configuration's schema has a model
    ///   the container's does not, when a migration plan would have to migrate a configuration of
    ///   its own (its stages' models have no such configuration), or when the container's schema
    ///   is in use by another container and has no configuration of that name and those models.
    /// - Complexity: O(*c* × *e*) for *c* configurations and *e* entities.
    static func names(for configurations: [ModelConfiguration], in schema: Schema, migrating: Bool) throws -> [String?] {
        let model = schema.managedObjectModel
        let every = Set(schema.entities.map(\.name))
        var names: [String?] = []
        // Core Data's name for every entity is never a configuration of its own.
        var taken: Set<String> = ["PF_DEFAULT_CONFIGURATION_NAME"]
        for configuration in configurations {
            guard let own = configuration.schema.map({ Set($0.entities.map(\.name)) }), own != every else {
                names.append(nil)
                continue
            }
            if let stranger = own.subtracting(every).sorted().first {
                throw SwiftDataError.loadIssueModelContainer.because(
                    "The configuration '\(configuration.name)' stores \(stranger), which the container's schema does not have.")
            }
            if migrating {
                throw SwiftDataError.loadIssueModelContainer.because(
                    "The configuration '\(configuration.name)' keeps models of its own, which a migration plan cannot migrate yet: give the container one configuration for the whole schema.")
            }
            // Two configurations may share a name (two stores given the same name and other
            // files); their stores still keep their own models.
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
        guard model.defineConfiguration(name, entities: entities.sorted().compactMap { model.entitiesByName[$0] }) else {
            throw SwiftDataError.loadIssueModelContainer.because(
                "The schema is in use by another container and has no configuration '\(name)' of these models; give this container a schema of its own.")
        }
    }
}
