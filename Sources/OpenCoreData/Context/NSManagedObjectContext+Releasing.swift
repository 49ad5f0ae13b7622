extension NSManagedObjectContext {
    /// Turns every object without unsaved changes into a fault, so that objects related to each
    /// other (which hold each other through their relationships' values) no longer keep each
    /// other alive: those nothing else holds then leave the registry, which holds them weakly. A
    /// migration does it between batches. Call on the context's queue.
    ///
    /// - Complexity: O(n) for the n registered objects.
    func releaseCleanObjects() {
        // Not `refreshAllObjects()`: a refresh is an event the next change notification lists,
        // and that list would hold every object.
        for object in registry.values where !object.hasChanges && !object.isFault {
            object.willTurnIntoFault()
            dropValues(of: object)
            object.didTurnIntoFault()
        }
    }
}
