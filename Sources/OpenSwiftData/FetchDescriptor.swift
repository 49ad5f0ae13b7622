import Foundation

/// What a fetch asks for: which models (`predicate`), in which order (`sortBy`), how many.
public struct FetchDescriptor<T: PersistentModel> {
    /// The condition a model must meet; nil for all models of the type.
    public var predicate: Predicate<T>?
    /// The order, first descriptor first; String key paths compare in Finder's order
    /// (`localizedStandard`) unless another comparator is given.
    public var sortBy: [SortDescriptor<T>]
    /// The most models to return; nil for no limit.
    public var fetchLimit: Int?
    /// How many matching models to skip first; nil for none.
    public var fetchOffset: Int?
    /// Whether models inserted, changed or deleted in the context and not yet saved count.
    public var includePendingChanges = true
    /// The properties to load with each model (a hint: others load when read).
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships whose models to load in the same fetch.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// Describes a fetch.
    ///
    /// - Parameters:
    ///   - predicate: The condition a model must meet; nil for all models.
    ///   - sortBy: The order.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
