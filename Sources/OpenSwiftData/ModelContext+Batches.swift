import Foundation
import OpenCoreData

extension ModelContext {
    /// The models `descriptor` describes, read from the store a batch at a time as the collection
    /// is walked (Core Data's `fetchBatchSize`): a large result costs its identifiers up front.
    ///
    /// - Parameters:
    ///   - descriptor: What to fetch.
    ///   - batchSize: How many models to read at a time.
    /// - Returns: The models, in the descriptor's order.
    /// - Throws: `SwiftDataError.includePendingChangesWithBatchSize` when the descriptor includes
    ///   pending changes and the context has some; as `fetch(_:)` otherwise.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        if descriptor.includePendingChanges && hasChanges {
            throw SwiftDataError.includePendingChangesWithBatchSize.because("save or roll back first, or set includePendingChanges to false")
        }
        let request = try FetchTranslation.request(descriptor, coordinator: container.coordinator)
        request.fetchBatchSize = max(batchSize, 1)
        return FetchResultsCollection(objects: try objectContext.fetch(request))
    }

    /// Calls `block` with each model `descriptor` describes, reading them a batch at a time.
    ///
    /// - Parameters:
    ///   - descriptor: What to walk; its limit and offset are kept.
    ///   - batchSize: How many models to read at a time.
    ///   - allowEscapingMutations: Accepted for SwiftData's signature; changes the block makes
    ///     stay in the context either way, for the app to save.
    ///   - block: What to do with each model.
    /// - Throws: What `block` throws; as `fetch(_:)`.
    /// - Complexity: O(n) in the models walked.
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false, block: (T) throws -> Void
    ) throws {
        let size = max(batchSize, 1)
        let limit = descriptor.fetchLimit.map { max($0, 0) } ?? Int.max
        var offset = max(descriptor.fetchOffset ?? 0, 0)
        var walked = 0
        while walked < limit {
            var batch = descriptor
            batch.fetchOffset = offset
            batch.fetchLimit = min(size, limit - walked)
            let models = try fetch(batch)
            for model in models { try block(model) }
            walked += models.count
            offset += models.count
            if models.count < batch.fetchLimit! { break }
        }
    }
}

/// The models of a batched fetch, made as they are reached.
public struct FetchResultsCollection<Element: PersistentModel>: RandomAccessCollection {
    private let objects: [NSManagedObject]

    init(objects: [NSManagedObject]) { self.objects = objects }

    public var startIndex: Int { objects.startIndex }
    public var endIndex: Int { objects.endIndex }

    public subscript(position: Int) -> Element {
        guard let model = (objects[position] as? ModelManagedObject)?.model(as: Element.self) else {
            preconditionFailure("The fetched object at \(position) is not a \(Element.self).")
        }
        return model
    }
}
