import Dispatch
import Foundation
import GRDBSQLite
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Tells when any connection, in this process or another, committed to a SQLite store: for
/// `NSPersistentStoreRemoteChange`.
///
/// Linux has no Darwin notifications, so the watcher asks the kernel (inotify) to report writes
/// to the store's file and its write-ahead log, and on each report asks its own connection for
/// `PRAGMA data_version`, which changes exactly when another connection committed (a checkpoint
/// or a reader touching the files does not change it). Nothing runs while nothing is written: no
/// polling. Reports that arrive together are handled once.
///
/// Where the kernel cannot report (a platform without inotify, or Linux once the user's inotify
/// watches run out), the watcher asks for the data version every `pollingInterval` instead: one
/// query of its own connection, without reading the database.
final class SQLiteChangeWatcher: @unchecked Sendable {
    /// How often a watcher without kernel reports looks for a commit.
    static let pollingInterval: DispatchTimeInterval = .milliseconds(50)
    /// For tests: watch by polling even where the kernel reports.
    static let alwaysPolls = Mutex(false)

    // @unchecked Sendable: every field below is touched only on `queue`, after init.
    private let queue: DispatchQueue
    private let onChange: @Sendable () -> Void
    private var connection: OpaquePointer?
    private var lastVersion: Int64 = 0
    private var source: (any DispatchSourceProtocol)?
    private var descriptor: Int32 = -1
    private let watchedNames: Set<String>
    /// How many looks have ended (a report's check with its retries, or a poll), for a test
    /// that waits for the watcher to have looked rather than for a while: under its own lock.
    private let looks = NSCondition()
    private var looksEnded = 0

    /// Starts watching the store at `path`; `onChange` runs on a background queue after each
    /// commit. Nil when the file cannot be opened.
    init?(path: String, onChange: @escaping @Sendable () -> Void) {
        queue = DispatchQueue(label: "com.apple.coredata.NSPersistentStoreRemoteChangeNotification.\(UUID().uuidString)")
        self.onChange = onChange
        let file = URL(fileURLWithPath: path)
        watchedNames = [file.lastPathComponent, file.lastPathComponent + "-wal"]
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            sqlite3_close(handle)
            return nil
        }
        connection = handle
        sqlite3_busy_timeout(handle, 1000)
        lastVersion = dataVersion() ?? 0
        if Self.alwaysPolls.withLock({ $0 }) || !watchWithKernel(directory: file.deletingLastPathComponent().path) {
            startPolling()
        }
    }

    /// Asks the kernel to report writes in the store's folder; false where it cannot.
    private func watchWithKernel(directory: String) -> Bool {
        #if canImport(Glibc)
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return false }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            Glibc.close(fd)
            return false
        }
        descriptor = fd
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.drainEvents() }
        source.setCancelHandler { Glibc.close(fd) }
        self.source = source
        source.resume()
        return true
        #else
        return false
        #endif
    }

    /// Looks for a commit every `pollingInterval`.
    private func startPolling() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.pollingInterval, repeating: Self.pollingInterval, leeway: .milliseconds(10))
        timer.setEventHandler { [weak self] in self?.checkVersion(retries: []) }
        source = timer
        timer.resume()
    }

    /// Stops watching; no `onChange` runs after it returns.
    func stop() {
        queue.sync {
            source?.cancel()
            source = nil
            close()
        }
    }

    deinit {
        source?.cancel()
        if connection != nil { sqlite3_close(connection) }
    }

    private func close() {
        if connection != nil { sqlite3_close(connection) }
        connection = nil
    }

    /// Reads every pending report, then checks the data version once if one named the store.
    private func drainEvents() {
        #if canImport(Glibc)
        var buffer = [UInt8](repeating: 0, count: 8192)
        var concernsStore = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (nameLength, name) = buffer.withUnsafeBytes { raw -> (Int, String) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let length = Int(event.len)
                    let bytes = raw[start..<min(start + length, count)].prefix { $0 != 0 }
                    return (length, String(decoding: bytes, as: UTF8.self))
                }
                if watchedNames.contains(name) { concernsStore = true }
                offset += MemoryLayout<inotify_event>.size + nameLength
            }
        }
        if concernsStore { checkVersion(retries: Self.retryDelays) }
        #endif
    }

    /// Milliseconds after which a report that found no new version looks again. A commit writes
    /// the log first and then the shared-memory index (which the kernel does not report), so the
    /// first look may come too early; a checkpoint's reports find nothing each time. Bounded, so
    /// that a quiet store costs nothing.
    private static let retryDelays = [2, 10, 50]

    private func checkVersion(retries: [Int]) {
        guard connection != nil else { return }
        if let version = dataVersion(), version != lastVersion {
            lastVersion = version
            onChange()
            lookEnded()
            return
        }
        guard let delay = retries.first else { return lookEnded() }
        queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self] in
            self?.checkVersion(retries: Array(retries.dropFirst()))
        }
    }

    private func lookEnded() {
        looks.lock()
        looksEnded += 1
        looks.broadcast()
        looks.unlock()
    }

    /// How many looks have ended so far.
    var lookCount: Int { looks.withLock { looksEnded } }

    /// Waits until `count` looks have ended in all (a change found and announced, or none found
    /// after the last retry).
    ///
    /// - Parameters:
    ///   - count: The number of looks.
    ///   - timeout: How long at most, in seconds.
    /// - Returns: Whether they had before the timeout.
    func waitForLooks(_ count: Int, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        looks.lock()
        defer { looks.unlock() }
        while looksEnded < count {
            if !looks.wait(until: deadline) { return looksEnded >= count }
        }
        return true
    }

    /// `PRAGMA data_version` on the watcher's connection: it changes when another connection
    /// commits a change to the database.
    private func dataVersion() -> Int64? {
        guard let connection else { return nil }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }
}
