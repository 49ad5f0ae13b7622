/// A store that can keep a generation of its data for a pinned context
/// (`NSQueryGenerationToken`): its reads made while `QueryGenerationScope.token` holds one of
/// its snapshots see the snapshot's state.
package protocol SnapshotReadingStore: AnyObject {
    /// The store's state now, kept until the snapshot is released.
    ///
    /// - Returns: The snapshot.
    /// - Throws: The store's error when it cannot keep one.
    func makeReadSnapshot() throws -> any StoreReadSnapshot
}

/// One store's kept state; only its store knows what it holds.
package protocol StoreReadSnapshot: AnyObject, Sendable {}
