/// How a context runs the work given to it.
public enum NSManagedObjectContextConcurrencyType: UInt, Sendable {
    /// Deprecated in Core Data: the context runs work on whatever thread calls it.
    case confinementConcurrencyType = 0
    /// The context owns a private serial queue.
    case privateQueueConcurrencyType = 1
    /// The context runs on the main queue.
    case mainQueueConcurrencyType = 2
}

/// Marks the main queue so a block on it knows where it runs whatever thread drains it.
private let mainQueueKey = DispatchSpecificKey<Bool>()
private let markMainQueue: Void = DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)

/// A scratch pad of managed objects: it fetches them, tracks their changes and saves them to its
/// coordinator's stores in one transaction.
///
/// A context is not thread-safe: use it, and its objects, inside `perform` or `performAndWait`
/// (or on the main queue for a main-queue context). The context itself may be passed between
/// threads (it is `Sendable`), its objects may not.
open class NSManagedObjectContext: NSObject, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is confined to the context's queue, as Core Data
    // requires of its users; `perform`/`performAndWait` are the ways onto that queue.

    /// How the context runs work.
    public let concurrencyType: NSManagedObjectContextConcurrencyType
    /// The coordinator whose stores the context fetches from and saves to.
    open var persistentStoreCoordinator: NSPersistentStoreCoordinator? {
        // The entities remembered by name and by class belong to the old coordinator's model.
        didSet {
            lastInsertedEntity = nil
            lastInsertedClass = nil
        }
    }
    /// A name shown in debugging output.
    open var name: String?
    /// The conflict resolution policy used when saving; `NSErrorMergePolicy` by default.
    open var mergePolicy: Any = NSErrorMergePolicy
    /// Whether the context takes in saves of its parent and siblings automatically.
    open var automaticallyMergesChangesFromParent: Bool = false {
        didSet { if automaticallyMergesChangesFromParent != oldValue { updateAutomaticMerging() } }
    }
    /// The did-save observer behind `automaticallyMergesChangesFromParent`.
    var mergeObserver: (any NSObjectProtocol)?
    /// The context whose changes this one builds on, instead of a coordinator's stores. A child's
    /// save pushes its changes into the parent; its fetches and faults see the parent's unsaved state.
    open var parent: NSManagedObjectContext? {
        didSet {
            persistentStoreCoordinator = parent?.persistentStoreCoordinator
            parent?.addChild(self)
        }
    }
    /// Child contexts, told when temporary IDs become permanent.
    var children: [WeakContext] = []
    let childrenLock = NSLock()
    /// How long cached values stay fresh; negative means forever (Core Data's default).
    open var stalenessInterval: TimeInterval = -1
    /// Whether faults for deleted rows turn into empty objects instead of stopping the program.
    open var shouldDeleteInaccessibleFaults: Bool = true
    /// Whether the context keeps strong references to every registered object. When false (the
    /// default, as in Core Data), the context holds registered objects weakly: one the app no
    /// longer references and that has no unsaved changes leaves the context as it is released.
    open var retainsRegisteredObjects: Bool = false {
        didSet { registry.retainsObjects = retainsRegisteredObjects }
    }
    /// Free-form information attached to the context.
    open var userInfo: NSMutableDictionary = NSMutableDictionary()
    /// Records changes so that `undo()` and `redo()` can revert and replay them; nil (no undo) by
    /// default, as in Core Data.
    @exclusivity(unchecked) open var undoManager: UndoManager? {
        didSet { token.hasUndoManager = undoManager != nil }
    }
    /// The author recorded with persistent history transactions.
    open var transactionAuthor: String?

    let queue: DispatchQueue?
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    // The bookkeeping below is `@exclusivity(unchecked)`: it is only touched on the context's queue,
    // and dynamic exclusivity checks on it ran on every object a fetch or save handles.

    /// The registered objects, by identity, held weakly (`ObjectRegistry`); the token keeps it,
    /// so that objects outliving a reset leave the registry they were in.
    var registry: ObjectRegistry { token.registry }
    /// Inserted objects in insertion order (some may since have been deleted; see flags).
    @exclusivity(unchecked) var insertedList: [NSManagedObject] = []
    @exclusivity(unchecked) var insertedCount = 0
    @exclusivity(unchecked) var updatedMap: [ObjectIdentifier: NSManagedObject] = [:]
    @exclusivity(unchecked) var deletedList: [NSManagedObject] = []
    /// Deleted objects whose delete rules have not run yet.
    @exclusivity(unchecked) var pendingDeletions: [NSManagedObject] = []
    /// The set of this event's inserted objects, being built on another thread.
    @exclusivity(unchecked) var insertedSetBuilder: InsertedSetBuilder?
    /// The batches of `fetchBatchSize` fetches whose rows are being read ahead (at most three).
    @exclusivity(unchecked) var batchesReadAhead: [FetchBatch] = []
    /// What changed since the last objects-did-change notification: positions in `insertedList`
    /// and `deletedList` where the current event starts, and the objects updated during it.
    @exclusivity(unchecked) var eventInsertedStart = 0
    @exclusivity(unchecked) var eventDeletedStart = 0
    @exclusivity(unchecked) var eventUpdated: [NSManagedObject] = []
    /// Objects refreshed since the last objects-did-change notification.
    var eventRefreshed: [NSManagedObject] = []
    /// Told each save's inserted, updated and deleted objects once they are clean, before the
    /// did-save notifications go (OpenSwiftData's `didSave` names its models from them). The
    /// objects, in the order saved, rather than the notification's sets of IDs: read in order,
    /// a million new objects' rows are found without a cache miss per ID, and nothing the save
    /// releases on its second thread is kept for the main one to free. The new objects come with
    /// their rows' keys (`SavedInserts`).
    package var savedObjectsHandler: ((_ inserted: SavedInserts, _ updated: [NSManagedObject], _ deleted: [NSManagedObject]) -> Void)?
    /// The generation of the stores this context reads (`setQueryGenerationFrom(_:)`).
    var queryGeneration = QueryGenerationState.unpinned
    /// Objects inserted in an earlier event and deleted since the last notification.
    var eventDroppedInserts: [NSManagedObject] = []
    /// What the last objects-did-change notification listed, for the save that posted it to
    /// reuse (`PostedChanges`).
    @exclusivity(unchecked) var lastChange: PostedChanges?
    /// The entity `NSEntityDescription.insertNewObject(forEntityName:into:)` found last, by name.
    @exclusivity(unchecked) var lastInsertedEntity: (String, NSEntityDescription, NSManagedObject.Type)?
    /// The entity `NSManagedObject.init(context:)` found last, by class.
    @exclusivity(unchecked) var lastInsertedClass: (ObjectIdentifier, NSEntityDescription)?

    /// What this context's objects hold instead of a weak reference each (`ContextToken`).
    @exclusivity(unchecked) private(set) var token: ContextToken!

    /// Creates a context of the given type.
    ///
    /// - Parameter concurrencyType: Which queue the context works on: a private queue of its own
    ///   (`.privateQueueConcurrencyType`), the main queue (`.mainQueueConcurrencyType`), or the
    ///   caller's thread (`.confinementConcurrencyType`, deprecated in Core Data).
    public init(concurrencyType: NSManagedObjectContextConcurrencyType) {
        self.concurrencyType = concurrencyType
        switch concurrencyType {
        case .privateQueueConcurrencyType:
            queue = DispatchQueue(label: "NSManagedObjectContext")
        case .mainQueueConcurrencyType:
            queue = DispatchQueue.main
        case .confinementConcurrencyType:
            queue = nil
        }
        super.init()
        token = ContextToken(self)
        if concurrencyType == .mainQueueConcurrencyType { markMainQueue }
        if concurrencyType == .privateQueueConcurrencyType {
            queue?.setSpecific(key: queueKey, value: ObjectIdentifier(self))
        }
    }

    deinit {
        if let mergeObserver { NotificationCenter.default.removeObserver(mergeObserver) }
        insertedSetBuilder?.discard()
        // Objects may outlive the context, and its coordinator with it.
        token.retire(persistentStoreCoordinator)
    }

    /// Creates a confinement context (deprecated in Core Data).
    override public convenience init() {
        self.init(concurrencyType: .confinementConcurrencyType)
    }

    // MARK: Queues

    /// Whether the caller is already on this context's queue.
    var isOnQueue: Bool {
        switch concurrencyType {
        case .confinementConcurrencyType: true
        // Under dispatchMain() on Linux the main queue is drained by a worker thread, so "on the
        // main queue" is a queue-specific mark, not `Thread.isMainThread`.
        case .mainQueueConcurrencyType: Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) != nil
        case .privateQueueConcurrencyType: DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self)
        }
    }

    /// Runs `block` asynchronously on the context's queue, then processes the pending changes it
    /// made (delete rules, the objects-did-change notification), as Core Data does after a block.
    ///
    /// - Parameter block: The work to run; it takes no arguments and returns nothing. A confinement
    ///   context, which has no queue, runs it at once on the caller's thread.
    open func perform(_ block: @escaping @Sendable () -> Void) {
        guard let queue else {
            block()
            processPendingChanges()
            return
        }
        queue.async {
            block()
            self.processPendingChanges()
        }
    }

    /// Runs `block` on the context's queue and waits for it; runs inline when already there.
    ///
    /// - Parameter block: The work to run; it takes no arguments, and its return value is handed
    ///   back to the caller.
    /// - Returns: The value `block` returned.
    /// - Throws: Only what `block` throws, passed on unchanged (the method `rethrows`).
    open func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue || queue == nil { return try block() }
        return try queue!.sync(execute: block)
    }

    // MARK: State

    /// Whether the context has unsaved inserts, updates or deletes.
    open var hasChanges: Bool { insertedCount > 0 || !updatedMap.isEmpty || !deletedList.isEmpty }

    /// Objects inserted since the last save.
    open var insertedObjects: Set<NSManagedObject> { Set(liveInserted) }
    /// Saved objects changed since the last save.
    open var updatedObjects: Set<NSManagedObject> { Set(updatedMap.values) }
    /// Objects that will be deleted at the next save.
    open var deletedObjects: Set<NSManagedObject> { Set(deletedList) }
    /// Every object the context knows.
    open var registeredObjects: Set<NSManagedObject> { Set(registry.values).union(liveInserted) }

    var liveInserted: [NSManagedObject] {
        insertedList.filter { $0.flags.contains(.inserted) && owns($0) }
    }

    /// Whether `object` is in this context: `object.managedObjectContext === self` without the
    /// weak load, and the retain and release of the context through its side table, per object.
    func owns(_ object: NSManagedObject) -> Bool { object.contextToken === token }

    // MARK: Inserting and deleting

    /// Inserts `object`; it is written at the next save.
    ///
    /// - Parameter object: The object to insert. It must belong to no context or to this one; the
    ///   program stops when it is in another context. Inserting a deleted saved object of this
    ///   context cancels its deletion.
    open func insert(_ object: NSManagedObject) {
        assertOnQueue("insert(_:)", object: object)
        if owns(object), object.isDeleted, object.primaryKey != 0 {
            undelete(object)
            return
        }
        precondition(
            owns(object) || object.managedObjectContext == nil,
            "An NSManagedObject may only be in (or observed by) a single NSManagedObjectContext.")
        guard !object.flags.contains(.inserted) else { return }
        // Inserted, deleted, and inserted again (an undone delete): it is still in the list.
        let reinserted = object.flags.contains(.deleted) && owns(object)
        let fromNoContext = object.contextToken == nil
        if reinserted {
            object.flags.remove(.deleted)
            pendingDeletions.removeAll { $0 === object }
        }
        undoManager?.registerUndo(withTarget: object) { [unowned self] in self.delete($0) }
        // An object of a context that was reset or released (an undone delete after a reset)
        // names its store by the old token's number: the store moves to its record first.
        if object.contextToken !== token { object.moveStoreToRecord() }
        object.contextToken = token
        // Listed by this event as inserted, an object is not listed as updated too, nor is one
        // given values before it joined a context (its values are all new).
        if fromNoContext { object.flags.remove([.updated, .changedInEvent]) }
        object.flags.insert(reinserted ? .inserted : [.inserted, .insertedInEvent])
        if !reinserted {
            insertedList.append(object)
            if SecondThread.helps(with: insertedList.count - (insertedSetBuilder?.handed ?? eventInsertedStart)) {
                let builder = insertedSetBuilder ?? InsertedSetBuilder(start: eventInsertedStart)
                insertedSetBuilder = builder
                builder.hand(insertedList)
            }
        }
        insertedCount += 1
        if object.temporaryID != nil { registerTemporary(object) }
        if !reinserted { object.awakeFromInsert() }
    }

    /// Marks `object` for deletion at the next save; delete rules run when pending changes are
    /// processed.
    ///
    /// - Parameter object: The object to delete. An object of another context is ignored; an object
    ///   inserted and not yet saved is simply dropped at the next save.
    open func delete(_ object: NSManagedObject) {
        assertOnQueue("delete(_:)", object: object)
        guard owns(object) else { return }
        undoManager?.registerUndo(withTarget: object) { [unowned self] in self.insert($0) }
        if object.flags.contains(.inserted) {
            // An insert already told is told undone: the next notification lists it as deleted.
            if !object.flags.contains(.insertedInEvent) { eventDroppedInserts.append(object) }
            object.flags.remove(.inserted)
            insertedCount -= 1
            pendingDeletions.append(object)
            object.flags.insert(.deleted)
            return
        }
        guard !object.flags.contains(.deleted) else { return }
        object.fireFault()
        object.flags.insert(.deleted)
        object.flags.remove(.updated)
        updatedMap[ObjectIdentifier(object)] = nil
        deletedList.append(object)
        pendingDeletions.append(object)
    }

    private func undelete(_ object: NSManagedObject) {
        undoManager?.registerUndo(withTarget: object) { [unowned self] in self.delete($0) }
        object.flags.remove(.deleted)
        deletedList.removeAll { $0 === object }
        pendingDeletions.removeAll { $0 === object }
    }

    func objectDidChange(_ object: NSManagedObject, listed: Bool) {
        updatedMap[ObjectIdentifier(object)] = object
        if !listed { eventUpdated.append(object) }
    }

    /// An object inserted in an earlier event changed: the next notification lists it as updated.
    func insertedObjectDidChange(_ object: NSManagedObject) {
        eventUpdated.append(object)
    }

    /// Posts `didChangeObjectsNotification` for the changes of the current event, as Core Data
    /// does when it processes pending changes.
    func postObjectsDidChange() {
        let listed = insertedList[min(eventInsertedStart, insertedList.count)...]
        var inserted: [NSManagedObject] = []
        inserted.reserveCapacity(listed.count)
        for object in listed where object.flags.contains(.inserted) {
            object.flags.remove(.insertedInEvent)
            inserted.append(object)
        }
        // The set built meanwhile holds every listed object: usable when each is still inserted.
        var insertedSet: Set<NSManagedObject>?
        if let builder = insertedSetBuilder {
            insertedSetBuilder = nil
            if builder.start == eventInsertedStart, inserted.count == listed.count {
                insertedSet = builder.finish(insertedList)
            } else {
                builder.discard()
            }
        }
        var deleted = Array(deletedList[min(eventDeletedStart, deletedList.count)...])
        deleted += eventDroppedInserts.filter { $0.flags.contains(.deleted) }
        eventDroppedInserts.removeAll()
        var updated: [NSManagedObject] = []
        for object in eventUpdated {
            object.flags.remove(.changedInEvent)
            if object.flags.contains(.updated) || object.flags.contains(.inserted) { updated.append(object) }
        }
        let refreshed = eventRefreshed
        eventInsertedStart = insertedList.count
        eventDeletedStart = deletedList.count
        eventUpdated.removeAll()
        eventRefreshed.removeAll()
        lastChange = nil
        guard !inserted.isEmpty || !deleted.isEmpty || !updated.isEmpty || !refreshed.isEmpty else { return }
        let posted = PostedChanges(inserted: PostedObjects(inserted, set: insertedSet), updated: PostedObjects(updated), deleted: PostedObjects(deleted))
        lastChange = posted
        var info: [AnyHashable: Any] = [
            NSInsertedObjectsKey: posted.inserted.set, NSUpdatedObjectsKey: posted.updated.set, NSDeletedObjectsKey: posted.deleted.set,
        ]
        if !refreshed.isEmpty { info[NSRefreshedObjectsKey] = sparseSet(refreshed) }
        NotificationCenter.default.post(name: NSManagedObjectContext.didChangeObjectsNotification, object: self, userInfo: info)
    }

    // MARK: Identity

    /// The object for `objectID`: the registered one, or a fault that is filled on first access.
    ///
    /// Stops the program on first access, as Core Data does, if no such row exists; use
    /// `existingObject(with:)` to get an error instead.
    ///
    /// - Parameter objectID: The ID of the object, from this context's coordinator. A temporary ID
    ///   must be registered in this context, or come from its parent context.
    /// - Returns: The registered object, or a new fault for the ID, registered in this context.
    open func object(with objectID: NSManagedObjectID) -> NSManagedObject {
        assertOnQueue("object(with:)")
        if let object = registeredObject(for: objectID) { return object }
        if objectID.isTemporaryID {
            // Only a child context can meet a temporary ID it does not know: an object its parent inserted.
            precondition(parent != nil, "No object with temporary ID \(objectID) is registered in this context.")
            let object = NSManagedObject.materialize(entity: objectID.entity, store: nil, primaryKey: 0, token: .passUnretained(token))
            object.temporaryID = objectID
            registry[objectID.key] = object
            return object
        }
        return registerFault(entity: objectID.entity, store: objectID.persistentStore!, primaryKey: objectID.primaryKey)
    }

    /// The object for `objectID`, filled from the store.
    ///
    /// - Parameter objectID: The ID of the object to find, from this context's coordinator.
    /// - Returns: The object, registered in this context, with its values loaded (or already held
    ///   from its fetched row).
    /// - Throws: `NSManagedObjectReferentialIntegrityError` (133000) when the object does not exist.
    ///   In a context without a parent, an error from reading the store's row is passed on.
    open func existingObject(with objectID: NSManagedObjectID) throws -> NSManagedObject {
        if let object = registeredObject(for: objectID), !object.isFault || object.cachedRow != nil {
            return object
        }
        if let parent {
            guard parent.performAndWait({ parent.snapshot(for: objectID) }) != nil else {
                throw CoreDataError.make(
                    NSManagedObjectReferentialIntegrityError, "The object \(objectID) does not exist.",
                    userInfo: [NSAffectedObjectsErrorKey: [objectID]])
            }
            let object = self.object(with: objectID)
            object.fireFault()
            return object
        }
        guard !objectID.isTemporaryID, let store = objectID.persistentStore,
            let row = try persistentStoreCoordinator?.executor(of: store).map({ try $0.row(for: objectID, in: self) })
                ?? readingQueryGeneration({ try reader(of: store).row(of: objectID.entity, primaryKey: objectID.primaryKey) })
        else {
            throw CoreDataError.make(
                NSManagedObjectReferentialIntegrityError, "The object \(objectID) does not exist in the store.",
                userInfo: [NSAffectedObjectsErrorKey: [objectID]])
        }
        let object = register(row: row, store: store, refresh: false)
        object.fireFault()
        return object
    }

    /// The object for `objectID` if the context has it registered; nil otherwise.
    ///
    /// - Parameter objectID: The ID to look up.
    /// - Returns: The registered object, possibly a fault, or `nil`; the store is never read.
    open func registeredObject(for objectID: NSManagedObjectID) -> NSManagedObject? {
        registry[objectID.key]
    }

    /// Gives permanent IDs to `objects` now, reserving their primary keys in the store.
    ///
    /// - Parameter objects: The objects to give permanent IDs; those that already have one are left
    ///   alone. Nothing happens when the context has no coordinator.
    /// - Throws: `NSPersistentStoreUnsupportedRequestTypeError` (134091, in `NSCocoaErrorDomain`)
    ///   from a store that cannot reserve primary keys; from the SQLite store, the error its write
    ///   transaction reports (for example on a read-only file). Objects whose keys were reserved
    ///   before the error keep their permanent IDs.
    open func obtainPermanentIDs(for objects: [NSManagedObject]) throws {
        let pending = objects.filter { $0.hasTemporaryID }
        guard let coordinator = persistentStoreCoordinator else { return }
        var byEntity: [ObjectIdentifier: [NSManagedObject]] = [:]
        for object in pending { byEntity[ObjectIdentifier(object.entity.layout!.root), default: []].append(object) }
        for (_, group) in byEntity {
            guard let store = coordinator.store(for: group[0].entity) else { continue }
            if let executor = coordinator.executor(of: store) {
                for (object, id) in zip(group, try executor.permanentIDs(for: group)) {
                    registerPermanentID(of: object, store: store, primaryKey: id.primaryKey)
                }
                continue
            }
            let first = try coordinator.saver(of: store).reservePrimaryKeys(for: group[0].entity, count: group.count)
            for (offset, object) in group.enumerated() {
                registerPermanentID(of: object, store: store, primaryKey: first + Int64(offset))
            }
        }
    }

    /// Gives `object` its permanent ID and moves it in the registry from its temporary key, which
    /// no longer finds it (the registry holds an object under one key: its deinitializer takes
    /// it out of that one).
    private func registerPermanentID(of object: NSManagedObject, store: NSPersistentStore, primaryKey: Int64) {
        if let temporary = object.temporaryID, registry[temporary.key] === object { registry[temporary.key] = nil }
        object.assignPermanentID(store: store, primaryKey: primaryKey)
        registry[object.registryKey] = object
    }

    func registeredObject(for reference: ObjectReference, in store: NSPersistentStore) -> NSManagedObject {
        guard let entity = store.entity(number: reference.entityNumber) else {
            preconditionFailure("The store refers to an unknown entity number \(reference.entityNumber).")
        }
        let key = ObjectKey(
            store: ObjectIdentifier(store), root: Int32(entity.layout!.root.layout!.entityNumber),
            primaryKey: reference.primaryKey, temporary: nil)
        if let object = registry[key] { return object }
        return registerFault(entity: entity, store: store, primaryKey: reference.primaryKey)
    }

    func registerFault(entity: NSEntityDescription, store: NSPersistentStore, primaryKey: Int64) -> NSManagedObject {
        let object = NSManagedObject.materialize(
            entity: entity, store: .passUnretained(store), primaryKey: primaryKey, token: .passUnretained(token))
        registry[ObjectKey(store: ObjectIdentifier(store), root: Int32(entity.layout!.root.layout!.entityNumber), primaryKey: primaryKey, temporary: nil)] = object
        return object
    }

    // MARK: Discarding changes

    /// Turns `object` back into a fault (dropping its changes when `flag` is false) or refreshes its
    /// saved values while keeping its changes (`flag` true).
    ///
    /// - Parameters:
    ///   - object: An object of this context. Objects of other contexts and inserted, unsaved
    ///     objects are left alone.
    ///   - flag: `true` to reread the saved values and re-apply the object's unsaved changes on top;
    ///     `false` to discard its changes (and a pending deletion) and make it a fault.
    open func refresh(_ object: NSManagedObject, mergeChanges flag: Bool) {
        guard owns(object), !object.isInserted else { return }
        // A refresh asks for the store's current values: rows read ahead may be older.
        dropReadAhead()
        eventRefreshed.append(object)
        if flag && object.hasChanges {
            let changes = object.changedValues()
            object.willTurnIntoFault()
            object.faultState = .fault
            object.cachedRow = nil
            object.fireFault()
            for (key, value) in changes {
                object.setPrimitiveValue(value is NSNull ? nil : value, forKey: key)
            }
            return
        }
        object.willTurnIntoFault()
        object.flags.remove(.updated)
        updatedMap[ObjectIdentifier(object)] = nil
        if object.isDeleted { undelete(object) }
        dropValues(of: object)
        object.didTurnIntoFault()
    }

    /// Makes `object` a fault: its values, and the objects they reference, are let go of.
    func dropValues(of object: NSManagedObject) {
        // Committed values first: while they are the object's values, dropping those would
        // first move them aside.
        object.committed = nil
        object.slots = SlotRow()
        object.cachedRow = nil
        object.faultState = .fault
    }

    /// Refreshes every registered object, keeping unsaved changes.
    open func refreshAllObjects() {
        for object in registry.values { refresh(object, mergeChanges: true) }
    }

    /// Discards every unsaved change: inserted objects leave the context, updated and deleted ones
    /// return to their saved values.
    open func rollback() {
        processPendingChanges()
        for object in insertedList where object.flags.contains(.inserted) || object.flags.contains(.deleted) {
            if object.hasTemporaryID { object.managedObjectContext = nil }
            object.flags = []
        }
        insertedList.removeAll()
        insertedCount = 0
        for object in Array(updatedMap.values) + deletedList {
            object.flags = []
            if let committed = object.committed {
                // As committed values, not a write: values that are already the committed ones
                // are not moved aside first.
                object.takeCommittedValues(committed)
            } else {
                object.slots = SlotRow()
                object.faultState = .fault
            }
        }
        updatedMap.removeAll()
        deletedList.removeAll()
        pendingDeletions.removeAll()
        resetEvent()
    }

    func resetEvent() {
        for object in eventUpdated { object.flags.remove(.changedInEvent) }
        for object in insertedList[min(eventInsertedStart, insertedList.count)...] { object.flags.remove(.insertedInEvent) }
        eventDroppedInserts.removeAll()
        // The builder's objects are no longer this event's list.
        insertedSetBuilder?.discard()
        insertedSetBuilder = nil
        lastChange = nil
        eventInsertedStart = 0
        eventDeletedStart = 0
        eventUpdated.removeAll()
        eventRefreshed.removeAll()
    }

    /// Forgets every object: registered objects become invalid and unsaved changes are dropped.
    open func reset() {
        // Every object of this context reaches it through `token`: cutting the token's one
        // reference detaches them all at once (their context reads nil, `owns` is false), where
        // setting each object's context cost an array of every registered object and a pass
        // over it, a fifth of letting go of a million fetched objects.
        token.context = nil
        token.retire(persistentStoreCoordinator)
        token = ContextToken(self)
        token.hasUndoManager = undoManager != nil
        registry.retainsObjects = retainsRegisteredObjects
        insertedList.removeAll()
        insertedCount = 0
        updatedMap.removeAll()
        deletedList.removeAll()
        pendingDeletions.removeAll()
        dropReadAhead()
        resetEvent()
        advanceQueryGeneration()
        // A caller resets to free memory: what earlier saves left to release aside is gone too.
        SecondThread.waitForReleases()
    }

    /// Undoes the last group of changes, if the context has an undo manager.
    open func undo() {
        processPendingChanges()
        undoManager?.undo()
        processPendingChanges()
    }

    /// Redoes the last undone group of changes.
    open func redo() {
        undoManager?.redo()
        processPendingChanges()
    }

    override open var description: String {
        "<NSManagedObjectContext \(name ?? ""): \(registry.count) registered, \(insertedCount) inserted, \(updatedMap.count) updated, \(deletedList.count) deleted>"
    }
}
