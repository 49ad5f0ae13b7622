import Foundation

/// A token that indicates which generation of the persistent stores a context reads.
///
/// A context pinned to a generation (`NSManagedObjectContext.setQueryGenerationFrom(_:)`) reads
/// every fetch, count and fault from the stores as they were when it was pinned, whatever other
/// contexts and processes save meanwhile, until it saves, merges, resets or is given another
/// generation. `current` asks for the generation current at the context's next read. Tokens are
/// immutable; two contexts pinned to one generation hold equal tokens.
///
/// Of the stores this package provides, the SQLite store keeps generations (it holds a read
/// transaction open on the pinned state; its write-ahead log cannot be checkpointed past it while
/// a token lives). Other stores are read as they are now.
public final class NSQueryGenerationToken: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` of a Sendable or immutable value.

    /// A token that informs a context to use the current generation.
    public static let current = NSQueryGenerationToken(snapshots: nil)

    /// The pinned state of each store that keeps generations, by store; nil for `current`.
    let snapshots: [ObjectIdentifier: any StoreReadSnapshot]?

    init(snapshots: [ObjectIdentifier: any StoreReadSnapshot]?) {
        self.snapshots = snapshots
    }

    /// The pinned state of `store`, if the token holds one.
    func snapshot(of store: NSPersistentStore) -> (any StoreReadSnapshot)? {
        snapshots?[ObjectIdentifier(store)]
    }

    /// - Returns: The token itself: tokens are immutable.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String {
        snapshots == nil ? "<NSQueryGenerationToken current>" : "<NSQueryGenerationToken \(ObjectIdentifier(self))>"
    }
}

/// The generation the reads of the running context operation see, set by a pinned context
/// around its reads so that the store's read path finds it without every read carrying it.
enum QueryGenerationScope {
    @TaskLocal static var token: NSQueryGenerationToken?
}

/// Where a context stands with query generations.
enum QueryGenerationState {
    /// Every read sees the stores as they are now.
    case unpinned
    /// The next read pins the generation current then (`NSQueryGenerationToken.current`, and
    /// after a save, merge or reset of a pinned context).
    case pinsOnNextRead
    /// Reads see this generation.
    case pinned(NSQueryGenerationToken)
}
