#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Removes the store's copy when the program is interrupted (Control-C, `kill`), which skips
/// `InspectedStore`'s `deinit`; and ignores a closed pipe (`dump … | head`), so that the program
/// runs to its end and removes the copy itself.
///
/// A signal handler may only call async-signal-safe functions: the paths to remove are made as
/// C strings beforehand and removed with `unlink` and `rmdir`.
enum ScratchCleanup {
    /// The files a copy may hold, then its folder, as C strings.
    nonisolated(unsafe) private static var paths: [UnsafeMutablePointer<CChar>] = []

    /// Remembers the copy of the store named `storeName` in `folder` and installs the handlers.
    static func register(_ folder: URL, storeName: String) {
        unregister()
        signal(SIGPIPE, SIG_IGN)
        let folderPath: String = folder.path
        let store: String = folder.appendingPathComponent(storeName).path
        let support: String = folder.appendingPathComponent("." + (storeName as NSString).deletingPathExtension + "_SUPPORT").path
        let all: [String] = [store, store + "-wal", store + "-shm", store + "-journal", support, folderPath]
        paths = all.map { strdup($0)! }
        for number in [SIGINT, SIGTERM, SIGHUP] {
            _ = signal(number) { received in
                ScratchCleanup.removeFromHandler()
                _exit(128 + received)
            }
        }
    }

    static func unregister() {
        for path in paths { free(path) }
        paths = []
    }

    private static func removeFromHandler() {
        for path in paths.dropLast() { unlink(path) }
        if let folder = paths.last { rmdir(folder) }
    }
}
