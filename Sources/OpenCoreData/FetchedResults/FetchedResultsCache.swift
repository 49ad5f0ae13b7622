import Foundation
import Synchronization

/// The section caches of fetched results controllers, by cache name, for this process.
///
/// Core Data keeps each cache in a private file and trusts it while the store's time stamp
/// matches; its format is not public. Here results are always read from the store (nothing would
/// be saved by a file), and the cache keeps what the name promises a program: one configuration
/// per name. A controller whose request, predicate, order or section key path differ from those
/// the name was first used with fails, where Core Data stops the program ("illegally mutated"),
/// until `deleteCache(withName:)` (docs/compatibility.md).
enum FetchedResultsCache {
    private static let configurations = Mutex<[String: String]>([:])

    /// Records the configuration for `name`, or fails when the name holds another.
    ///
    /// - Throws: `NSCoreDataError` (134060) with Core Data's message when `name` was used with
    ///   another configuration and not deleted since.
    static func check(_ name: String, request: any FetchedResultsRequest, sectionNameKeyPath: String?) throws {
        let configuration = [
            request.entityName ?? "", request.predicate.map { "\($0)" } ?? "",
            (request.sortDescriptors ?? []).map { "\($0)" }.joined(separator: ","), sectionNameKeyPath ?? "",
        ].joined(separator: "\u{1F}")
        let known = configurations.withLock { caches -> String in
            if let known = caches[name] { return known }
            caches[name] = configuration
            return configuration
        }
        guard known == configuration else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The persistent cache of section information does not match the current configuration. You have illegally mutated the NSFetchedResultsController's fetch request, its predicate, or its sort descriptor without either disabling caching or using +deleteCacheWithName:",
                userInfo: ["cacheName": name])
        }
    }

    /// Forgets the cache `name`, or every cache when nil.
    static func delete(_ name: String?) {
        configurations.withLock { caches in
            if let name { caches[name] = nil } else { caches.removeAll() }
        }
    }
}
