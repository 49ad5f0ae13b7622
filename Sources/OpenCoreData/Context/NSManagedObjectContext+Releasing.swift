extension NSManagedObjectContext {
    /// Registered objects below which a context never looks for unreferenced ones: a sweep costs
    /// a pass over the registry, which small contexts need not pay for.
    static let registeredToRelease = 4096

    /// Releases the registered objects nothing but the context holds and that have no unsaved
    /// changes, once the registry has doubled since it last did (and holds at least
    /// `registeredToRelease`), unless `retainsRegisteredObjects`.
    ///
    /// Core Data keeps registered objects weakly, so an app that fetches or saves in one
    /// long-lived context keeps only what it holds. Called when a fetch or a save begins: on the
    /// context's queue, so the objects are deinitialized there, and at no point where the fetch
    /// or save itself holds objects only through the registry. Doubling keeps the passes'
    /// cost proportional to the objects registered.
    func releaseUnreferencedObjectsIfDue() {
        guard !retainsRegisteredObjects, registry.count >= registeredBeforeRelease else { return }
        registry.removeUnreferenced()
        registeredBeforeRelease = Swift.max(NSManagedObjectContext.registeredToRelease, registry.count * 2)
    }

    /// Turns every object without unsaved changes into a fault and releases those nothing but
    /// the context holds, whatever the registry's size: a migration does it between batches, so
    /// that objects related to each other (which keep each other alive until they are faults)
    /// go too. Call on the context's queue.
    func releaseCleanObjects() {
        // Not `refreshAllObjects()`: a refresh is an event the next change notification lists,
        // and that list would hold every object.
        for object in registry.values where !object.hasChanges && !object.isFault {
            object.willTurnIntoFault()
            dropValues(of: object)
            object.didTurnIntoFault()
        }
        registry.removeUnreferenced()
        registeredBeforeRelease = Swift.max(NSManagedObjectContext.registeredToRelease, registry.count * 2)
    }
}
