import Dispatch

/// One asynchronous fetch, from `execute(_:)` to its completion block.
///
/// 1. Read: on a queue of its own, the stores read the rows (the SQLite store on a reader
///    connection of its pool, interruptible, counting rows as they come); progress reports hop to
///    the context's queue.
/// 2. Register: on the context's queue, in blocks of a quarter of a millisecond, so that work the
///    context is given meanwhile runs between them; rows become objects through the same
///    `RowRegistrar` as `fetch(_:)`, uniqued with the objects the context holds.
///
/// docs/design.md ("Asynchronous fetching") says why it is built this way.
/// 3. Complete: pending changes merged (as `fetch(_:)` does), the result set, the completion block
///    called, on the context's queue.
///
/// A cancellation stops the read at once (the SQLite statement is interrupted) and, if it comes
/// while registering, takes back the objects the fetch registered that nothing else has taken up.
final class AsynchronousFetchOperation<ResultType>: @unchecked Sendable {
    // @unchecked Sendable: the `let`s are set before the operation is shared and never change;
    // the read phase touches only its own locals; everything under "Registering" is touched only
    // on the context's queue, where phases 2 and 3 run.

    let result: NSAsynchronousFetchResult<ResultType>
    private let context: NSManagedObjectContext
    private let queue: DispatchQueue
    private let request: NSAsynchronousFetchRequest<ResultType>
    private let fetchRequest: NSFetchRequest<ResultType>
    private let entity: NSEntityDescription
    private let stores: [NSPersistentStore]
    private let storeQuery: StoreQuery
    private let kind: Kind
    private let monitor: StoreReadMonitor
    /// The request's `estimatedResultCount`, or 0.
    private let estimate: Int64
    /// Whether the stores were asked without offset and limit, which then apply after pending
    /// changes are merged in (as in `fetch(_:)`).
    private let limitsAfterMerge: Bool

    private enum Kind {
        /// Rows registered as objects (also for IDs and counts when pending changes must be merged).
        case objects
        /// Object IDs straight from the rows, as `fetch(_:)` makes them: nothing is registered.
        case objectIDs
        case dictionaries
        case count
    }

    // MARK: Registering (context's queue only)

    private var groups: [RowGroup] = []
    private var groupIndex = 0
    private var rowIndex = 0
    private var objects: [NSManagedObject] = []
    /// The objects as `ResultType`, built block by block; unused when `ResultType` is
    /// `NSManagedObject` itself (the array is reinterpreted) or results are not objects.
    private var typed: [ResultType] = []
    /// Positions in `objects` of the objects this fetch added to the context's registry.
    private var created = Positions()
    private var rowsRead = 0
    /// Set once the fetch has completed or failed, so that no queued block carries on.
    private var ended = false

    /// Registration yields the context's queue after this long (in nanoseconds), so that other
    /// work waits about this long at most.
    private static var registrationSlice: UInt64 { 250_000 }

    init(_ request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, coordinator: NSPersistentStoreCoordinator) throws {
        self.request = request
        self.context = context
        queue = context.queue!
        fetchRequest = request.fetchRequest
        entity = try fetchRequest.resolvedEntity(in: coordinator.managedObjectModel)
        stores = context.stores(for: fetchRequest, coordinator: coordinator)
        let pending = fetchRequest.includesPendingChanges && context.hasChanges
        switch fetchRequest.resultType {
        case .dictionaryResultType: kind = .dictionaries
        case .countResultType: kind = pending ? .objects : .count
        case .managedObjectIDResultType: kind = pending ? .objects : .objectIDs
        default: kind = .objects
        }
        var query = context.query(
            for: fetchRequest, entity: entity,
            propertyValues: kind == .dictionaries
                || (kind == .objects && fetchRequest.includesPropertyValues && fetchRequest.resultType == .managedObjectResultType))
        limitsAfterMerge = pending
        if pending {
            query.fetchLimit = 0
            query.fetchOffset = 0
        }
        storeQuery = query
        estimate = Int64(max(0, request.estimatedResultCount))
        monitor = StoreReadMonitor()
        // Created here, on the context's queue, so that a `Progress` current on this thread
        // (`becomeCurrent(withPendingUnitCount:)`) adopts it as its child.
        let progress = Progress(totalUnitCount: estimate > 0 ? estimate : -1)
        result = NSAsynchronousFetchResult(request: request, context: context, progress: progress, monitor: monitor)
        progress.cancellationHandler = { [monitor] in monitor.cancel() }
        // A parent cancelled already has cancelled the progress as it joined; Foundation would
        // call the handler just set, but later, on another queue, after a small fetch is done.
        if progress.isCancelled { monitor.cancel() }
    }

    func start() {
        // A queue of its own rather than a global one: a serial queue gets a thread even when the
        // global pool (as many threads as cores) is busy, and the read may hold it for seconds,
        // which would otherwise delay the very `Progress` cancellation handler meant to stop it.
        DispatchQueue(label: "OpenCoreData.NSAsynchronousFetchRequest").async { self.read() }
    }

    // MARK: 1. Reading, off the context's queue

    private func read() {
        do {
            try monitor.checkCancellation()
            let meter = RowMeter { [self] rows in reportRowsRead(rows) }
            switch kind {
            case .objects, .objectIDs:
                var groups: [RowGroup] = []
                for store in stores {
                    try monitor.checkCancellation()
                    let rows: [StoreRow]
                    if let sqlite = store as? SQLiteStore {
                        rows = try sqlite.fetchRows(storeQuery, monitor: monitor, meter: meter)
                    } else {
                        rows = try store.fetchRows(storeQuery)
                        meter.rowsRead(rows.count)
                    }
                    groups.append((store, rows))
                }
                meter.finish()
                try monitor.checkCancellation()
                if kind == .objectIDs {
                    let ids = try Self.objectIDs(groups)
                    let rows = meter.rows
                    queue.async { self.deliver(ids.value, rowsRead: rows) }
                } else {
                    let handoff = RowsHandoff(groups)
                    groups = []
                    queue.async { self.startRegistering(handoff) }
                }
            case .dictionaries:
                let fetch = try DictionaryFetch(fetchRequest, entity: entity)
                var values: [ResultType] = []
                for store in stores {
                    try monitor.checkCancellation()
                    for dictionary in try store.fetchDictionaries(storeQuery, fetch) {
                        guard let value = NSDictionary(dictionary: dictionary) as? ResultType else {
                            throw CoreDataError.make(
                                NSCoreDataError,
                                "A fetch request with dictionaryResultType must have NSDictionary or NSFetchRequestResult results.")
                        }
                        values.append(value)
                    }
                }
                meter.rowsRead(values.count)
                try monitor.checkCancellation()
                let done = UncheckedTransfer(values)
                queue.async { self.deliver(done.value, rowsRead: done.value.count) }
            case .count:
                var total = 0
                for store in stores {
                    try monitor.checkCancellation()
                    total += try store.countRows(storeQuery)
                }
                try monitor.checkCancellation()
                let value = try Self.typed(NSNumber(value: total), entity: entity)
                let done = UncheckedTransfer([value])
                queue.async { self.deliver(done.value, rowsRead: 1) }
            }
        } catch {
            let failure = UncheckedTransfer(error)
            queue.async { self.fail(failure.value) }
        }
    }

    /// Hops a row count to the context's queue, where the progress lives.
    private func reportRowsRead(_ rows: Int) {
        let completed = Int64(rows)
        // With an estimate, the total stays above the count until the end, so that the progress
        // (and the unit it holds of its parent) does not finish before the results exist.
        let total: Int64 = estimate > 0 ? max(estimate, completed + 1) : -1
        queue.async { [result] in result.progressDidAdvance(completed: completed, total: total) }
    }

    private static func objectIDs(_ groups: [RowGroup]) throws -> UncheckedTransfer<[ResultType]> {
        var ids: [NSManagedObjectID] = []
        ids.reserveCapacity(groups.reduce(0) { $0 + $1.rows.count })
        for (store, rows) in groups {
            var lookup = EntityLookup(store: store)
            for row in rows {
                ids.append(NSManagedObjectID(entity: lookup.entity(row.entityNumber), store: store, primaryKey: row.primaryKey))
            }
        }
        if let typed = ids as? [ResultType] { return UncheckedTransfer(typed) }
        return UncheckedTransfer(try ids.map { try typed($0, entity: nil) })
    }

    private static func typed(_ value: Any, entity: NSEntityDescription?) throws -> ResultType {
        guard let typed = value as? ResultType else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The fetch request's result type does not match the results of entity \(entity?.name ?? "?") (\(type(of: value))).")
        }
        return typed
    }

    // MARK: 2. Registering, on the context's queue

    private var buildsTyped: Bool {
        fetchRequest.resultType == .managedObjectResultType && !limitsAfterMerge && !resultsAreObjects
    }

    /// Whether `[NSManagedObject]` is `[ResultType]` already.
    private var resultsAreObjects: Bool { ResultType.self == NSManagedObject.self }

    /// Takes the rows out of `handoff` straight into `groups`: a parameter holding them as well
    /// would make the first slice copy them all.
    private func startRegistering(_ handoff: RowsHandoff) {
        groups = handoff.take()
        rowsRead = groups.reduce(0) { $0 + $1.rows.count }
        if monitor.isCancelled { return fail(nil) }
        // Room for every row at once: letting the registry grow would rehash it inside one block,
        // which at a million objects takes tens of milliseconds.
        context.registry.reserveCapacity(context.registry.count + rowsRead)
        objects.reserveCapacity(rowsRead)
        if buildsTyped { typed.reserveCapacity(rowsRead) }
        registerSome()
    }

    private func registerSome() {
        guard !ended else { return }
        if monitor.isCancelled { return fail(nil) }
        let deadline = DispatchTime.now().uptimeNanoseconds + Self.registrationSlice
        while groupIndex < groups.count {
            guard registerRows(until: deadline) else {
                // Behind whatever was queued meanwhile.
                if !ended { queue.async { self.registerSome() } }
                return
            }
            Self.releaseElsewhere(groups[groupIndex].rows)
            groups[groupIndex].rows = []
            groupIndex += 1
            rowIndex = 0
        }
        finishRegistering()
    }

    /// Registers the current group's rows until they are done (true) or `deadline` has passed.
    ///
    /// Rows register through a `RowRegistrar`, as in `fetch(_:)`: a new one per slice, since
    /// whatever ran on the queue between slices (a `reset()`) may have replaced the registry's
    /// tables it remembers.
    private func registerRows(until deadline: UInt64) -> Bool {
        let store = groups[groupIndex].store
        // Out of the operation for the slice, so that the array has one owner and each row's
        // values move into their object in place (`RowsHandoff` keeps the reading side's
        // reference from lingering): a copy of each row cost a retain and a release.
        var rows = groups[groupIndex].rows
        groups[groupIndex].rows = []
        let fillsObjects = !fetchRequest.returnsObjectsAsFaults && fetchRequest.resultType == .managedObjectResultType
        let prefetches = !(fetchRequest.relationshipKeyPathsForPrefetching ?? []).isEmpty
        // New objects take their values as they register, unless prefetched relationships must
        // reach the rows first (as in `fetch(_:)`).
        var registrar = RowRegistrar(
            store: store, filling: fillsObjects && !prefetches, refresh: fetchRequest.shouldRefreshRefetchedObjects)
        let buildsTyped = self.buildsTyped
        let context = self.context
        var mismatch: NSEntityDescription?
        var finished = false
        do {
            // The loop works on locals, moved out of the operation and back: every access to a
            // stored property of a class is an exclusivity check, several a row otherwise.
            var index = rowIndex
            var objects = self.objects
            var created = self.created
            var typed = self.typed
            self.objects = []
            self.created = Positions()
            self.typed = []
            defer {
                rowIndex = index
                self.objects = objects
                self.created = created
                self.typed = typed
            }
            rows: while true {
                guard index < rows.count else {
                    finished = true
                    break rows
                }
                let (object, isNew) = registrar.register(&rows[index], in: context)
                index += 1
                // This fetch's to take back if cancelled.
                if isNew { created.append(objects.count) }
                if fillsObjects { object.fireFault() }
                objects.append(object)
                if buildsTyped {
                    guard let value = object as? ResultType else {
                        mismatch = object.entity
                        break rows
                    }
                    typed.append(value)
                }
                if index & 15 == 0, DispatchTime.now().uptimeNanoseconds >= deadline { break rows }
            }
        }
        groups[groupIndex].rows = rows
        if let mismatch {
            fail(CoreDataError.make(
                NSCoreDataError, "The fetch request's result type does not match the objects of entity \(mismatch.name ?? "?")."))
            return false
        }
        return finished
    }

    /// Drops `value` on another queue: freeing a million rows is milliseconds the context's queue
    /// does not have to spend.
    private static func releaseElsewhere<Value>(_ value: Value) {
        let garbage = UncheckedTransfer(value)
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(garbage) {} }
    }

    /// Prefetching, pending changes, limits and the result's type: what `fetch(_:)` does after
    /// registering, in one block.
    private func finishRegistering() {
        // Checked before any array of results holds the objects, so that taking them back works.
        if monitor.isCancelled { return fail(nil) }
        do {
            let prefetching = fetchRequest.resultType == .managedObjectResultType ? fetchRequest.relationshipKeyPathsForPrefetching ?? [] : []
            if !prefetching.isEmpty {
                for store in stores { try context.prefetch(prefetching, of: objects, entity: entity, store: store) }
            }
            var merged: [NSManagedObject]?
            if fetchRequest.includesPendingChanges && context.hasChanges {
                merged = context.mergePendingChanges(into: objects, request: fetchRequest, entity: entity)
            } else if limitsAfterMerge {
                merged = objects
            }
            if var merged {
                if limitsAfterMerge, fetchRequest.fetchOffset > 0 { merged = Array(merged.dropFirst(fetchRequest.fetchOffset)) }
                if fetchRequest.fetchLimit > 0, merged.count > fetchRequest.fetchLimit { merged = Array(merged.prefix(fetchRequest.fetchLimit)) }
                switch fetchRequest.resultType {
                case .countResultType: return complete([try Self.typed(NSNumber(value: merged.count), entity: entity)], rowsRead: rowsRead)
                case .managedObjectIDResultType: return complete(try merged.map { try Self.typed($0.objectID, entity: entity) }, rowsRead: rowsRead)
                default: return complete(try typedObjects(merged), rowsRead: rowsRead)
                }
            }
            complete(resultsAreObjects ? unsafeBitCast(objects, to: [ResultType].self) : typed, rowsRead: rowsRead)
        } catch {
            fail(error)
        }
    }

    private func typedObjects(_ objects: [NSManagedObject]) throws -> [ResultType] {
        if resultsAreObjects { return unsafeBitCast(objects, to: [ResultType].self) }
        return try objects.map { try Self.typed($0, entity: entity) }
    }

    // MARK: 3. Completing, on the context's queue

    /// Completes a fetch that registered nothing, unless it was cancelled meanwhile: a
    /// cancellation that arrives after the last row still wins, since the caller asked for it
    /// before the results were handed over.
    private func deliver(_ values: [ResultType], rowsRead: Int) {
        if monitor.isCancelled { return fail(nil) }
        complete(values, rowsRead: rowsRead)
    }

    private func complete(_ values: [ResultType], rowsRead: Int) {
        let count = Int64(max(values.count, rowsRead))
        result.progressDidAdvance(completed: count, total: count)
        end()
        result.succeed(with: values)
        request.completionBlock?(result)
    }

    /// Ends the fetch with `error`, or, when it was cancelled, takes back what it registered and
    /// ends it with `NSUserCancelledError`.
    private func fail(_ error: (any Error)?) {
        guard !ended else { return }
        guard monitor.isCancelled || error is StoreReadCancelled else {
            end()
            return report(error)
        }
        var info: [String: Any] = [:]
        if (error as? StoreReadCancelled)?.interruptedStatement == true {
            info[NSUnderlyingErrorKey] = NSError(
                domain: NSSQLiteErrorDomain, code: 9,
                userInfo: [NSLocalizedDescriptionKey: "interrupted (SQLITE_INTERRUPT): the running statement was stopped"])
        }
        let cancelled = CoreDataError.make(NSUserCancelledError, "The asynchronous fetch was cancelled.", userInfo: info)
        ended = true
        takeBackSome(then: cancelled)
    }

    /// Takes back, in slices as short as the registration's, the objects this fetch added to the
    /// registry, unless something has taken them up since (a fetch that ran between two blocks, a
    /// relationship, a change): the registry's reference is then not the only one, and they stay.
    private func takeBackSome(then error: NSError) {
        let deadline = DispatchTime.now().uptimeNanoseconds + Self.registrationSlice
        while let index = objects.indices.last {
            var key: ObjectKey?
            if created.last == index {
                created.removeLast()
                key = objects[index].objectID.key
            }
            objects.removeLast()
            if typed.count > index { typed.removeLast() }
            if let key, let object = context.registry.removeIfOnlyReference(key, where: { !$0.hasChanges }) {
                object.managedObjectContext = nil
            }
            if index & 63 == 0, DispatchTime.now().uptimeNanoseconds >= deadline {
                queue.async { self.takeBackSome(then: error) }
                return
            }
        }
        end()
        report(error)
    }

    private func report(_ error: (any Error)?) {
        result.finish(error: error)
        request.completionBlock?(result)
    }

    /// Lets go of the rows and objects (the result keeps its own array).
    private func end() {
        ended = true
        Self.releaseElsewhere(groups)
        groups = []
        objects = []
        typed = []
        created = Positions()
    }
}

/// One store's rows of an asynchronous fetch.
private typealias RowGroup = (store: NSPersistentStore, rows: [StoreRow])

/// The rows read, handed from the reading queue to the context's queue in a box that the
/// receiving side empties: the registering side then holds the only reference to them, and can
/// move each row's values out in place instead of copying the row.
private final class RowsHandoff: @unchecked Sendable {
    // @unchecked Sendable: filled on the reading queue before the hand-over, emptied once on the
    // context's queue after it.
    private var groups: [RowGroup]

    init(_ groups: [RowGroup]) { self.groups = groups }

    func take() -> [RowGroup] {
        var taken: [RowGroup] = []
        swap(&taken, &groups)
        return taken
    }
}
