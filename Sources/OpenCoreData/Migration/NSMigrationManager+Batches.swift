import Foundation

/// How far a migration with contexts is into its current batch.
struct MigrationBatches {
    /// Instances per batch.
    let size: Int
    /// Instances read or related since the destination was last saved.
    var handled = 0
    /// Whether the destination has been saved a batch at a time: the migration then validates
    /// the new store at its end instead of in one final save.
    var savedAny = false

    init(size: Int) { self.size = max(1, size) }
}

/// Reading, relating and validating a batch at a time.
extension NSMigrationManager {
    /// Calls `body` with each source instance of `mapping`, read a batch at a time when its
    /// source is a fetch of the source context (Xcode's mapping models' is:
    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", …), $manager.sourceContext, NO)`),
    /// the whole of its value otherwise.
    func forEachSourceInstance(of mapping: NSEntityMapping, _ body: (NSManagedObject) throws -> Void) throws {
        let request: NSFetchRequest<NSManagedObject>
        if let expression = mapping.sourceExpression {
            if let fetch = expression as? NSFetchRequestExpression, !fetch.isCountOnlyRequest,
                let base = PredicateEvaluator.value(of: fetch.requestExpression, object: nil, bindings: bindings(mapping: mapping))
                    as? NSFetchRequest<NSManagedObject>,
                base.resultType == .managedObjectResultType,
                PredicateEvaluator.value(of: fetch.contextExpression, object: nil, bindings: bindings(mapping: mapping)) as? NSManagedObjectContext
                    === sourceContext
            {
                request = base
            } else {
                let value = PredicateEvaluator.value(of: expression, object: nil, bindings: bindings(mapping: mapping))
                let instances = value.flatMap(ValueComparison.collectionElements)?.compactMap { $0 as? NSManagedObject } ?? []
                for instance in instances { try body(instance) }
                try finishBatchIfDue(instances.count)
                return
            }
        } else {
            guard let name = mapping.sourceEntityName else { return }
            request = fetchRequest(forSourceEntityNamed: name, predicateString: "TRUEPREDICATE")
        }
        var start = 0
        while request.fetchLimit == 0 || start < request.fetchLimit {
            let size = request.fetchLimit == 0 ? batches.size : min(batches.size, request.fetchLimit - start)
            // Pages by offset: the source store is open read-only and nothing changes it while
            // the migration reads, so each page follows the last in the store's order.
            var fetched = 0
            do {
                // In a scope of its own, so that the batch's objects are let go of before the
                // contexts release what nothing else holds.
                let page = try sourceContext.fetch(Self.page(of: request, from: start, count: size))
                for instance in page { try body(instance) }
                fetched = page.count
            }
            try finishBatchIfDue(fetched)
            guard fetched == size else { return }
            start += size
        }
    }

    /// Calls `body` with each destination instance `mapping` made, a batch at a time.
    func forEachDestinationInstance(of mapping: NSEntityMapping, _ body: (NSManagedObject) throws -> Void) throws {
        guard let associations else { return }
        let name = mapping.name ?? ""
        var start = 0
        while start < associations.count(ofMapping: name) {
            let range = start..<min(start + batches.size, associations.count(ofMapping: name))
            do {
                let page = associations.destinations(ofMapping: name, in: range)
                for instance in page { try body(instance) }
            }
            start = range.upperBound
            try finishBatchIfDue(range.count)
        }
    }

    /// Counts `count` more instances handled, and saves the batch once there are enough.
    private func finishBatchIfDue(_ count: Int) throws {
        batches.handled += count
        if batches.handled >= batches.size { try saveBatch() }
    }

    /// Saves what the destination context holds, without validating it (relationships may still
    /// be missing), keeps the saved associations as keys, and lets both contexts release the
    /// objects nothing else holds (a policy's own references stay valid: they become faults).
    func saveBatch() throws {
        try destinationContext.save(validating: false)
        associations?.keepSaved()
        sourceContext.releaseCleanObjects()
        destinationContext.releaseCleanObjects()
        batches.handled = 0
        batches.savedAny = true
    }

    /// Validates every object of the new store, a batch at a time, as the final save would have:
    /// the errors of all objects together, as a save reports them.
    ///
    /// - Throws: The validation errors (`NSValidationMultipleErrorsError` for several).
    func validateDestinationStore() throws {
        var errors: [NSError] = []
        for entity in destinationModel.entities where !entity.isAbstract {
            let request = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
            request.entity = entity
            request.includesSubentities = false
            request.returnsObjectsAsFaults = false
            var start = 0
            while true {
                try checkCancellation()
                var fetched = 0
                do {
                    let page = try destinationContext.fetch(Self.page(of: request, from: start, count: batches.size))
                    for object in page {
                        do { try object.validateForInsert() } catch let error as NSError { errors += CoreDataError.separated(error) }
                    }
                    fetched = page.count
                }
                destinationContext.releaseCleanObjects()
                guard fetched == batches.size else { break }
                start += fetched
            }
        }
        if let error = CoreDataError.combining(errors) { throw error }
    }

    /// Instances `start..<start + count` of what `base` fetches.
    private static func page(of base: NSFetchRequest<NSManagedObject>, from start: Int, count: Int) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: base.entityName ?? "")
        if let entity = base.entity { request.entity = entity }
        request.predicate = base.predicate
        request.sortDescriptors = base.sortDescriptors
        request.includesSubentities = base.includesSubentities
        request.relationshipKeyPathsForPrefetching = base.relationshipKeyPathsForPrefetching
        request.returnsObjectsAsFaults = false
        request.fetchOffset = base.fetchOffset + start
        request.fetchLimit = count
        return request
    }
}
