import Dispatch

/// One asynchronous fetch, from `execute(_:)` to its completion block.
///
/// 1. Read: on a queue of its own, the stores read the rows (the SQLite store on a reader
///    connection of its pool, interruptible, counting rows as they come, and handing them over
///    in chunks as it goes); progress reports hop to the context's queue.
/// 2. Register: on the context's queue, while the next rows are read, in blocks of a quarter of a
///    millisecond, so that work the context is given meanwhile runs between them; rows become
///    objects through the same `RowRegistrar` as `fetch(_:)`, uniqued with the objects the
///    context holds, but new objects are only staged: they enter the context's registry once
///    every row is in (in blocks too; one that the context registered meanwhile wins), so that
///    a cancellation during the read has nothing to take back.
/// 3. Complete: pending changes merged (as `fetch(_:)` does), the result set, the completion
///    block called, on the context's queue.
///
/// docs/design.md ("Asynchronous fetching") says why it is built this way.
///
/// A cancellation stops the read at once (the SQLite statement is interrupted) and takes back the
/// objects the fetch registered that nothing else has taken up; so does an error.
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
    private let stores: [any RowReadingStore]
    private let storeQuery: StoreQuery
    private let kind: Kind
    private let monitor: StoreReadMonitor
    /// The generation the context reads, which the read on another thread must see too.
    private let generation: NSQueryGenerationToken?
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
    /// Positions in `objects` of the objects this fetch created, staged until published.
    private var created = Positions()
    /// Whether any object of this fetch may be in the context's registry: publishing has begun,
    /// or the registrar registered one at once.
    private var registeredAny = false
    /// Per store, the new objects by primary key until they are published: pages shaped as the
    /// registry's, which take them in whole pages.
    private var staging: [ObjectIdentifier: (store: NSPersistentStore, table: PrimaryKeyTable)] = [:]
    /// The context's token when the first object was staged, and whether it changed while
    /// staging went on (a `reset()` between slices): objects staged before a reset carry the old
    /// token and must not enter the new registry, which could not tell when they go.
    private var stagedFor: ContextToken?
    private var stagedAcrossReset = false
    /// Keys (by store) of staged objects whose row the context registered another object for
    /// meanwhile; that object takes their place in the results.
    private var taken: [ObjectIdentifier: Set<Int64>] = [:]
    private var rowsRead = 0
    /// Where the fetch stands: registering, publishing, replacing, ended.
    private var phase = AsynchronousFetchPhase.start

    /// Rows the read hands over at a time: reading and registering then run side by side, on two
    /// threads, instead of one after the other.
    private static var rowsPerChunk: Int { 4_096 }

    /// Registration yields the context's queue after this long (in nanoseconds), so that other
    /// work waits about this long at most.
    private var registrationSlice: UInt64 { request.registrationSlice }

    init(_ request: NSAsynchronousFetchRequest<ResultType>, context: NSManagedObjectContext, coordinator: NSPersistentStoreCoordinator) throws {
        self.request = request
        self.context = context
        queue = context.queue!
        fetchRequest = request.fetchRequest
        entity = try fetchRequest.resolvedEntity(in: coordinator.managedObjectModel)
        stores = try context.readers(for: fetchRequest, entity: entity, coordinator: coordinator)
        generation = try context.generationToEnter() ?? QueryGenerationScope.token
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
        QueryGenerationScope.$token.withValue(generation) { readInGeneration() }
    }

    private func readInGeneration() {
        do {
            try monitor.checkCancellation()
            let meter = RowMeter { [self] rows in reportRowsRead(rows) }
            switch kind {
            case .objects:
                for store in stores {
                    try monitor.checkCancellation()
                    let chunks = RowChunks(size: Self.rowsPerChunk) { [self] rows in handOver(rows, of: store) }
                    handOver(try store.fetchRows(storeQuery, monitor: monitor, meter: meter, chunks: chunks), of: store)
                }
                meter.finish()
                try monitor.checkCancellation()
                queue.async { self.readingFinished() }
            case .objectIDs:
                var groups: [RowGroup] = []
                for store in stores {
                    try monitor.checkCancellation()
                    groups.append((store, try store.fetchRows(storeQuery, monitor: monitor, meter: meter, chunks: nil)))
                }
                meter.finish()
                try monitor.checkCancellation()
                let ids = try Self.objectIDs(groups)
                let rows = meter.rows
                queue.async { self.deliver(ids.value, rowsRead: rows) }
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

    /// Sends rows read to the context's queue, to register while the next ones are read.
    private func handOver(_ rows: consuming [StoreRow], of store: NSPersistentStore) {
        guard !rows.isEmpty else { return }
        let handoff = RowsHandoff([(store, rows)])
        queue.async { self.receive(handoff) }
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
    private func receive(_ handoff: RowsHandoff) {
        var received = handoff.take()
        guard !phase.isEnded else { return Self.releaseElsewhere(received) }
        if rowsRead == 0, estimate > 0 {
            objects.reserveCapacity(Int(estimate))
            if buildsTyped { typed.reserveCapacity(Int(estimate)) }
        }
        rowsRead += received.reduce(0) { $0 + $1.rows.count }
        groups.append(contentsOf: received)
        // `groups` must hold the only reference: registering moves values out of the rows in place.
        received = []
        if phase.registersNow { registerSome() }
    }

    private func readingFinished() {
        if phase.readFinished() { registerSome() }
    }

    private func registerSome() {
        guard case .registering(let readDone, _) = phase else { return }
        // Cancelled while the read goes on: the read, interrupted, reports it at once (and says
        // that it stopped the statement).
        if monitor.isCancelled {
            if readDone { fail(nil) }
            return
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + registrationSlice
        while groupIndex < groups.count {
            guard registerRows(until: deadline) else {
                // Behind whatever was queued meanwhile.
                if phase.yieldRegistration() {
                    queue.async {
                        if self.phase.resumeRegistration() { self.registerSome() }
                    }
                }
                return
            }
            groups[groupIndex].rows = []
            groupIndex += 1
            rowIndex = 0
        }
        // Caught up with the read: the groups done so far are empty.
        groups = []
        groupIndex = 0
        // In the table's order, unsorted: a debug build's generic sort of a million-row fetch's
        // 4,000 page numbers held the queue for 7 ms, and any order will do.
        let began = phase.caughtUp { staging.values.flatMap { staged in staged.table.pageNumbers.map { (staged.store, staged.table, $0) } } }
        if began, case .publishing(let pages, _) = phase {
            registeredAny = registeredAny || !pages.isEmpty
            publishSome()
        }
    }

    private func stagingTable(for store: NSPersistentStore) -> PrimaryKeyTable {
        if let staged = staging[ObjectIdentifier(store)] { return staged.table }
        let table = PrimaryKeyTable()
        staging[ObjectIdentifier(store)] = (store, table)
        return table
    }

    /// Registers the staged objects in the context, a block of pages at a time.
    private func publishSome() {
        guard case .publishing(let pages, var done) = phase else { return }
        if monitor.isCancelled { return fail(nil) }
        let deadline = DispatchTime.now().uptimeNanoseconds + registrationSlice
        // The registry's tables, found again each block: whatever ran on the queue between blocks
        // (a `reset()`) may have replaced them.
        let root = Int32(entity.layout!.root.layout!.entityNumber)
        while done < pages.count {
            let (store, staged, page) = pages[done]
            var keys: [Int64] = []
            let registry = context.registry
            let current = context.token!
            let wholePages = !stagedAcrossReset && current === stagedFor
            let (moved, added) = registry.withLock {
                registry.pagedTable(store: store, root: root)
                    .adoptPage(page, from: staged, taken: &keys, onlyOf: wholePages ? nil : current)
            }
            registry.didAdopt(moved, added: added)
            if !keys.isEmpty { taken[ObjectIdentifier(store), default: []].formUnion(keys) }
            done += 1
            if DispatchTime.now().uptimeNanoseconds >= deadline {
                phase = .publishing(pages: pages, done: done)
                queue.async { self.publishSome() }
                return
            }
        }
        staging = [:]
        guard phase.published(replacing: taken.isEmpty ? nil : created.runs) else { return finishRegistering() }
        replaceSome()
    }

    /// Puts in the results, in place of staged objects whose row the context registered another
    /// object for meanwhile (a fetch between two blocks), that object: rare, and a pass over the
    /// new objects, a block at a time.
    private func replaceSome() {
        guard case .replacing(let runs, var run, var position) = phase else { return }
        if monitor.isCancelled { return fail(nil) }
        let deadline = DispatchTime.now().uptimeNanoseconds + registrationSlice
        let root = Int32(entity.layout!.root.layout!.entityNumber)
        var done = 0
        while run < runs.count {
            let end = runs[run].upperBound
            while position < end {
                let staged = objects[position]
                if let store = staged.store, taken[ObjectIdentifier(store)]?.contains(staged.primaryKey) == true {
                    let registry = context.registry
                    let registered: NSManagedObject? = registry.withLock {
                        guard let slot = registry.pagedTable(store: store, root: root).existingSlot(for: staged.primaryKey) else { return nil }
                        if let registered = PrimaryKeyTable.object(in: slot) { return registered }
                        // The object that held the row's slot was released meanwhile (nothing
                        // held it): the fetch's own object takes it.
                        registry.put(staged, in: slot)
                        return nil
                    }
                    if let registered { replace(at: position, with: registered) }
                }
                position += 1
                done += 1
                if done & 63 == 0, DispatchTime.now().uptimeNanoseconds >= deadline {
                    phase = .replacing(runs: runs, run: run, position: position)
                    queue.async { self.replaceSome() }
                    return
                }
            }
            run += 1
            if run < runs.count { position = runs[run].lowerBound }
        }
        finishRegistering()
    }

    private func replace(at position: Int, with registered: NSManagedObject) {
        let staged = objects[position]
        if registered.isFault, registered.cachedRow == nil {
            registered.cachedRow = staged.isFault ? staged.cachedRow : staged.slots
            registered.version = staged.version
        }
        if !fetchRequest.returnsObjectsAsFaults, fetchRequest.resultType == .managedObjectResultType { registered.fireFault() }
        objects[position] = registered
        if buildsTyped, let value = registered as? ResultType { typed[position] = value }
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
        if let stagedFor, stagedFor !== context.token { stagedAcrossReset = true }
        stagedFor = stagedFor ?? context.token
        var registrar = RowRegistrar(
            store: store, filling: fillsObjects && !prefetches, refresh: fetchRequest.shouldRefreshRefetchedObjects,
            staging: stagingTable(for: store))
        defer { if registrar.registeredNew { registeredAny = true } }
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

    /// Takes back what the fetch registered and ends it with `error`, or with
    /// `NSUserCancelledError` when it was cancelled.
    private func fail(_ error: (any Error)?) {
        guard !phase.isEnded else { return }
        guard monitor.isCancelled || error is StoreReadCancelled else {
            phase.end()
            return takeBackSome(then: error)
        }
        var info: [String: Any] = [:]
        if let underlying = (error as? StoreReadCancelled)?.underlying { info[NSUnderlyingErrorKey] = underlying }
        let cancelled = CoreDataError.make(NSUserCancelledError, "The asynchronous fetch was cancelled.", userInfo: info)
        phase.end()
        takeBackSome(then: cancelled)
    }

    /// Takes back, in slices as short as the registration's, the objects this fetch added to the
    /// registry: it lets go of them, and the registry holds objects weakly, so those nothing else
    /// has taken up since (a fetch that ran between two blocks, a relationship, a change) leave it.
    private func takeBackSome(then error: (any Error)?) {
        // Staged objects were never registered: nothing to take back.
        guard registeredAny else {
            end()
            return report(error)
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + registrationSlice
        while let index = objects.indices.last {
            if created.last == index { created.removeLast() }
            objects.removeLast()
            if typed.count > index { typed.removeLast() }
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
        phase.end()
        Self.releaseElsewhere(groups)
        groups = []
        Self.releaseElsewhere(staging)
        staging = [:]
        // Staged objects of a cancelled fetch die here: freeing them is the other queue's work.
        Self.releaseElsewhere(objects)
        Self.releaseElsewhere(typed)
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
