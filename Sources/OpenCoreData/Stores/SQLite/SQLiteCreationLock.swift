#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on the folder of a store being created, held while one process creates it,
/// so that two processes creating the same store at once do not both switch a new file to WAL,
/// vacuum it and write its schema: the second waits, then finds the first one's store.
///
/// It is `flock` on the folder itself: no file is added beside the store, and the lock is
/// independent of the POSIX locks SQLite takes on the store's files (closing the folder never
/// drops those). The kernel releases it when the process dies, so a killed creator blocks no one.
final class SQLiteCreationLock {
    private var descriptor: Int32

    /// Takes the lock on `folder`, waiting up to `timeout` seconds for another process's.
    ///
    /// - Parameters:
    ///   - folder: The store's folder.
    ///   - timeout: How long to wait, as `NSPersistentStoreTimeoutOption` says.
    ///   - path: The store's path, for the error.
    /// - Returns: The lock, or nil when the folder cannot be opened (the open that follows reports
    ///   why in its own words).
    /// - Throws: `NSPersistentStoreTimeoutError` when another process held the lock past `timeout`.
    static func take(folder: String, timeout: Double, path: String) throws -> SQLiteCreationLock? {
        let descriptor = open(folder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            let held = failure == EWOULDBLOCK || failure == EINTR
            guard held, ContinuousClock.now < deadline else {
                close(descriptor)
                if !held { return nil }
                throw CoreDataError.make(
                    NSPersistentStoreTimeoutError,
                    "The store at \(path) is being created by another process; waited \(Int(timeout)) s (NSPersistentStoreTimeoutOption).",
                    userInfo: [NSFilePathErrorKey: path])
            }
            usleep(5_000)
        }
        return SQLiteCreationLock(descriptor: descriptor)
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Releases the lock; also done when the lock is released from memory.
    func unlock() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { unlock() }
}
