/// What changed in a context, by object ID: one element of `NSManagedObjectContext.changes()`.
public struct NSManagedObjectContextChanges: Sendable {
    /// Objects inserted (into the context, or into the store when `saved`).
    public var inserted: Set<NSManagedObjectID>
    /// Objects whose values changed.
    public var updated: Set<NSManagedObjectID>
    /// Objects deleted.
    public var deleted: Set<NSManagedObjectID>
    /// Objects whose values were refreshed from the store (merges).
    public var refreshed: Set<NSManagedObjectID>
    /// Whether the changes were just saved, rather than made in memory.
    public var saved: Bool
}

extension NSManagedObjectContext {
    /// The context's changes as they happen, as an async sequence: Linux's replacement for
    /// observing managed objects and contexts with KVO. Every objects-did-change (processed
    /// pending changes, merges) and did-save notification of this context becomes one element.
    ///
    /// ```swift
    /// for await change in context.changes() where change.updated.contains(item.objectID) {
    ///     print("item changed")
    /// }
    /// ```
    ///
    /// - Returns: A stream that yields one `NSManagedObjectContextChanges` per notification, from
    ///   the moment it is created. Ending the iteration removes its notification observers.
    public func changes() -> AsyncStream<NSManagedObjectContextChanges> {
        AsyncStream { continuation in
            let center = NotificationCenter.default
            let tokens = [
                center.addObserver(forName: NSManagedObjectContext.didChangeObjectsNotification, object: self, queue: nil) { note in
                    continuation.yield(Self.changes(from: note.userInfo ?? [:], saved: false))
                },
                center.addObserver(forName: NSManagedObjectContext.didSaveObjectsNotification, object: self, queue: nil) { note in
                    continuation.yield(Self.changes(from: note.userInfo ?? [:], saved: true))
                },
            ]
            let observers = UncheckedTransfer(tokens)
            continuation.onTermination = { _ in
                for token in observers.value { NotificationCenter.default.removeObserver(token) }
            }
        }
    }

    private static func changes(from info: [AnyHashable: Any], saved: Bool) -> NSManagedObjectContextChanges {
        func ids(_ key: String) -> Set<NSManagedObjectID> {
            Set((info[key] as? Set<NSManagedObject> ?? []).map(\.objectID))
        }
        return NSManagedObjectContextChanges(
            inserted: ids(NSInsertedObjectsKey), updated: ids(NSUpdatedObjectsKey), deleted: ids(NSDeletedObjectsKey),
            refreshed: ids(NSRefreshedObjectsKey), saved: saved)
    }
}
