import Foundation
import Synchronization

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// The identifiers `context`'s `didSave` notification names as inserted while `save` runs (empty
/// when it posts none).
///
/// - Parameters:
///   - context: The context whose notification is heard.
///   - save: What saves it.
/// - Returns: The inserted identifiers of the last notification.
/// - Throws: What `save` throws.
func insertedIdentifiers(announcedBy context: ModelContext, during save: () throws -> Void) rethrows -> [PersistentIdentifier] {
    let inserted = Mutex<[PersistentIdentifier]>([])
    let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
        let identifiers = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
        inserted.withLock { $0 = identifiers }
    }
    defer { NotificationCenter.default.removeObserver(observer) }
    try save()
    return inserted.withLock { $0 }
}
