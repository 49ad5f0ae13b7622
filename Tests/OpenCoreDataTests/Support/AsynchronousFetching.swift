import Foundation
import GRDB
@testable import OpenCoreData

extension TestStack {
    /// Fills TSPItem with `count` saved rows in one SQL statement, straight into Apple's table
    /// (seconds for a million rows, where a save of a million objects takes a minute in a debug
    /// build). Row `k` has Z_PK `k`, name "Item k", done when `k` is odd, and `createdAt`
    /// descending with `k`, so that sorting by `createdAt` reverses the table's order.
    func insertItems(_ count: Int) throws {
        let item = coordinator.managedObjectModel.entitiesByName["TSPItem"]!
        let store = self.store as! SQLiteStore
        try store.pool!.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < ?)
                    INSERT INTO ZTSPITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZCREATEDAT, ZDONE)
                    SELECT k, ?, 1, 'Item ' || k, 700000000.0 - k, k % 2 FROM n
                    """,
                arguments: [count, store.storeNumber(item)])
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'TSPItem'", arguments: [count])
        }
    }
}

/// Waits for an asynchronous fetch's completion block and keeps what it saw.
final class CompletionProbe<T>: @unchecked Sendable {
    // @unchecked Sendable: the fields are written once by the completion block before `done` is
    // signalled, and read only after waiting for it.
    private let done = DispatchSemaphore(value: 0)
    /// Weak: the request's block holds the probe, and the result holds its request.
    private(set) weak var result: NSAsynchronousFetchResult<T>?
    /// Whether the block ran on its context's queue.
    private(set) var ranOnContextQueue = false
    private(set) var calls = 0
    private(set) var completedAt: ContinuousClock.Instant?

    /// The completion block to give the request.
    func block(for context: NSManagedObjectContext) -> (NSAsynchronousFetchResult<T>) -> Void {
        { result in
            self.completedAt = .now
            self.calls += 1
            self.result = result
            self.ranOnContextQueue = context.isOnQueue
            self.done.signal()
        }
    }

    /// Waits up to `seconds` for the block; true if it ran.
    func wait(seconds: Double = 120) -> Bool {
        done.wait(timeout: .now() + seconds) == .success
    }
}

/// A request and its probe: `NSAsynchronousFetchRequest(fetchRequest:completionBlock:)` with a
/// completion block that records what it receives.
func probedRequest<T>(
    _ fetchRequest: NSFetchRequest<T>, context: NSManagedObjectContext
) -> (NSAsynchronousFetchRequest<T>, CompletionProbe<T>) {
    let probe = CompletionProbe<T>()
    return (NSAsynchronousFetchRequest(fetchRequest: fetchRequest, completionBlock: probe.block(for: context)), probe)
}

/// Runs `execute(_:)` on the context's queue, as Core Data requires, and returns the result it
/// gave back at once.
func execute<T>(_ request: NSAsynchronousFetchRequest<T>, in context: NSManagedObjectContext) throws -> NSAsynchronousFetchResult<T> {
    let result = try context.performAndWait { try context.execute(request) }
    return result as! NSAsynchronousFetchResult<T>
}
