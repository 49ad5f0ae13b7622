import Foundation
import Testing
@testable import OpenCoreData

/// `NSPersistentStoreRemoteChange`: every write to a store, by any coordinator, reaches every
/// coordinator that opened it with the option, on a background queue, and nothing comes while
/// nothing is written.
@Suite struct RemoteChangeTests {
    /// The change watcher of the coordinator's SQLite store, if it has one.
    static func watcher(of coordinator: NSPersistentStoreCoordinator) -> SQLiteChangeWatcher? {
        (coordinator.persistentStores.first as? SQLiteStore)?.changeWatcher
    }

    /// Counts a coordinator's remote change notifications and keeps the last one.
    final class Listener: @unchecked Sendable {
        // @unchecked Sendable: fields under `lock`.
        private let lock = NSCondition()
        private var received: [Notification] = []
        private var onMainThread = false
        private var token: NSObjectProtocol?

        init(_ coordinator: NSPersistentStoreCoordinator) {
            token = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil) { [weak self] note in
                guard let self else { return }
                lock.lock()
                received.append(note)
                if Thread.isMainThread { onMainThread = true }
                lock.broadcast()
                lock.unlock()
            }
        }

        deinit { if let token { NotificationCenter.default.removeObserver(token) } }

        var count: Int { lock.withLock { received.count } }
        var last: Notification? { lock.withLock { received.last } }
        var all: [Notification] { lock.withLock { received } }
        var cameOnMainThread: Bool { lock.withLock { onMainThread } }

        /// Waits until at least `count` notifications came; false after `timeout` seconds.
        func wait(for count: Int, timeout: TimeInterval = 10) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            lock.lock()
            defer { lock.unlock() }
            while received.count < count {
                if !lock.wait(until: deadline) { return received.count >= count }
            }
            return true
        }
    }

    private static func open(_ url: URL, model: NSManagedObjectModel, history: Bool = true) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(
            type: .sqlite, at: url,
            options: [NSPersistentStoreRemoteChangeNotificationPostOptionKey: true, NSPersistentHistoryTrackingKey: history])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (coordinator, context)
    }

    @Test func aSaveAndABatchRequestReachEveryCoordinatorOnTheStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Shared.sqlite")
        let model = HistoryTrackingTests.model()
        let (writer, writerContext) = try Self.open(url, model: model)
        let (reader, readerContext) = try Self.open(url, model: model)
        let writerHears = Listener(writer)
        let readerHears = Listener(reader)

        try writerContext.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: writerContext).setValue("Milk", forKey: "name")
            try writerContext.save()
        }
        #expect(readerHears.wait(for: 1))
        #expect(writerHears.wait(for: 1))
        let note = try #require(readerHears.last)
        let store = reader.persistentStores[0]
        #expect(note.object as? NSPersistentStoreCoordinator === reader)
        #expect(note.userInfo?[NSStoreUUIDKey] as? String == store.identifier)
        #expect((note.userInfo?[NSPersistentStoreURLKey] as? URL)?.standardizedFileURL == url.standardizedFileURL)
        let token = try #require(note.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
        #expect(token == reader.currentPersistentHistoryToken(fromStores: nil))
        #expect(!readerHears.cameOnMainThread)

        // What the notification announces is there to merge.
        try readerContext.performAndWait {
            let transactions = try HistoryTrackingTests.transactions(readerContext, .fetchHistory(after: nil as NSPersistentHistoryToken?))
            #expect(transactions.last?.token == token)
        }

        let before = readerHears.count
        try writerContext.performAndWait {
            let update = NSBatchUpdateRequest(entityName: "Item")
            update.propertiesToUpdate = ["done": true]
            _ = try writerContext.execute(update)
        }
        #expect(readerHears.wait(for: before + 1))
    }

    /// Where the kernel cannot report writes (no inotify, or none left), the watcher asks for the
    /// data version on a timer: commits still arrive, and quiet stores stay quiet.
    @Test func withoutKernelReportsAWatcherPollsTheDataVersion() throws {
        SQLiteChangeWatcher.alwaysPolls.withLock { $0 = true }
        defer { SQLiteChangeWatcher.alwaysPolls.withLock { $0 = false } }
        let directory = TemporaryDirectory()
        let url = directory.file("Polled.sqlite")
        let model = HistoryTrackingTests.model()
        let (writer, writerContext) = try Self.open(url, model: model)
        let (reader, _) = try Self.open(url, model: model)
        let readerHears = Listener(reader)
        _ = writer
        let watcher = try #require(Self.watcher(of: reader))
        // Two polls of a quiet store: nothing.
        #expect(watcher.waitForLooks(watcher.lookCount + 2))
        #expect(readerHears.count == 0)
        try writerContext.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: writerContext).setValue("Milk", forKey: "name")
            try writerContext.save()
        }
        #expect(readerHears.wait(for: 1))
        // Two more polls after the commit's: the commit is told once.
        #expect(watcher.waitForLooks(watcher.lookCount + 2))
        #expect(readerHears.count == 1)
    }

    @Test func nothingIsPostedWhileNothingIsWritten() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("Quiet.sqlite")
        let model = HistoryTrackingTests.model()
        let (writer, context) = try Self.open(url, model: model, history: false)
        let hears = Listener(writer)
        try context.performAndWait {
            // Reads and a save with nothing to write touch no data.
            _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
            try context.save()
        }
        // A write to the log's file that commits nothing (opened for writing and closed) makes
        // the watcher look, with its retries, and find no commit.
        let watcher = try #require(Self.watcher(of: writer))
        let looked = watcher.lookCount
        let log = try #require(FileHandle(forWritingAtPath: url.path + "-wal"))
        try log.close()
        #expect(watcher.waitForLooks(looked + 1))
        #expect(hears.count == 0)
        try context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("Eggs", forKey: "name")
            try context.save()
        }
        #expect(hears.wait(for: 1))
        // Without history, no token.
        #expect(hears.last?.userInfo?[NSPersistentHistoryTokenKey] == nil)
    }

    @Test func aStoreWithoutTheOptionPostsNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: HistoryTrackingTests.model(), directory: directory)
        let hears = Listener(stack.coordinator)
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "Item", into: stack.context).setValue("Eggs", forKey: "name")
            try stack.context.save()
        }
        // Without the option the store has no watcher, the only thing that posts the notification.
        #expect(Self.watcher(of: stack.coordinator) == nil)
        #expect(hears.count == 0)
    }
}
