import GRDB
import Logging
import OpenCoreData

/// A store opened for reading without its model. Its files are copied to a temporary folder and
/// only the copy is opened, so that nothing (not SQLite's recovery of a write-ahead log, not a
/// lock, not a trigger) changes a byte of the original; the copy is removed when this goes away.
final class InspectedStore {
    /// The model as the store gives it (its cache, or its tables), untouched: what `model` writes.
    let recoveredModel: NSManagedObjectModel
    let source: SQLiteModelRecovery.Source
    let metadata: [String: Any]
    /// The model the copy is opened with: the recovered one, with app classes replaced by
    /// `NSManagedObject` and transformable values read as their bytes (their transformers and
    /// classes are the app's, which this program has not).
    let model: NSManagedObjectModel
    let coordinator: NSPersistentStoreCoordinator
    let context: NSManagedObjectContext
    let hasHistory: Bool
    private let scratch: URL

    /// Copies and opens the store at `path`.
    ///
    /// - Throws: `InspectError` with one line when there is no file, it is not a Core Data store,
    ///   or it cannot be read.
    init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw InspectError("There is no store file at \(path).") }
        guard !isDirectory.boolValue else { throw InspectError("\(path) is a folder, not a store file.") }
        // The file a link leads to, so that the copy is of the store and not of the link (which
        // would open the store itself), and its log and external data are found beside it.
        let original = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-inspect-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        ScratchCleanup.register(scratch, storeName: original.lastPathComponent)
        do {
            let copy = scratch.appendingPathComponent(original.lastPathComponent)
            try Self.copyStoreFiles(of: original, to: copy)
            do {
                (recoveredModel, source) = try SQLiteModelRecovery.model(ofStoreAt: copy.path)
                metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: copy)
            } catch {
                // The copy's path means nothing to the user: name the file they gave.
                throw InspectError(InspectError(error).description.replacingOccurrences(of: copy.path, with: path))
            }
            // The same model again, to adjust for reading.
            model = try (source == .modelCache ? SQLiteModelRecovery.model(ofStoreAt: copy.path).model : SQLiteModelRecovery.modelFromTables(atPath: copy.path))
            Self.adjustForReading(model)
            hasHistory = Self.hasHistoryTables(copy)
            coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            // Rows this model reads badly are logged as errors; the output says what was read.
            coordinator.logger = Logger(label: "coredata-inspect", factory: { _ in SwiftLogNoOpLogHandler() })
            let options: [AnyHashable: Any] = [
                NSIgnorePersistentStoreVersioningOption: true, NSMigratePersistentStoresAutomaticallyOption: false,
                NSInferMappingModelAutomaticallyOption: false, NSPersistentHistoryTrackingKey: hasHistory,
            ]
            do {
                try coordinator.addPersistentStore(type: .sqlite, at: copy, options: options)
            } catch {
                throw InspectError(InspectError(error).description.replacingOccurrences(of: copy.path, with: path))
            }
            context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            ScratchCleanup.unregister()
            throw error
        }
    }

    deinit {
        for store in coordinator.persistentStores { try? coordinator.remove(store) }
        try? FileManager.default.removeItem(at: scratch)
        ScratchCleanup.unregister()
    }

    /// The store's UUID, which its object IDs and history tokens carry.
    var storeUUID: String { metadata[NSStoreUUIDKey] as? String ?? "" }

    /// The store file, its write-ahead log and rollback journal (which the copy's first open
    /// recovers, as the store's next writer would), and a link to its external-data folder.
    private static func copyStoreFiles(of original: URL, to copy: URL) throws {
        do {
            try FileManager.default.copyItem(at: original, to: copy)
            for suffix in ["-wal", "-journal"] where FileManager.default.fileExists(atPath: original.path + suffix) {
                try FileManager.default.copyItem(atPath: original.path + suffix, toPath: copy.path + suffix)
            }
        } catch {
            throw InspectError("The store file at \(original.path) can't be read: \((error as NSError).localizedDescription)")
        }
        // External binary values stay where they are; the copy reads them through a link.
        let support = "." + original.deletingPathExtension().lastPathComponent + "_SUPPORT"
        let folder = original.deletingLastPathComponent().appendingPathComponent(support)
        if FileManager.default.fileExists(atPath: folder.path) {
            try? FileManager.default.createSymbolicLink(at: copy.deletingLastPathComponent().appendingPathComponent(support), withDestinationURL: folder)
        }
    }

    private static func adjustForReading(_ model: NSManagedObjectModel) {
        func adjust(_ attribute: NSAttributeDescription) {
            if attribute.attributeType == .transformableAttributeType {
                attribute.attributeType = .binaryDataAttributeType
                attribute.valueTransformerName = nil
                attribute.attributeValueClassName = nil
            }
            if let composite = attribute as? NSCompositeAttributeDescription { composite.elements.forEach(adjust) }
        }
        for entity in model.entities {
            entity.managedObjectClassName = "NSManagedObject"
            for case let attribute as NSAttributeDescription in entity.properties where attribute.entity === entity { adjust(attribute) }
        }
    }

    /// Whether the store has the history tables Core Data creates with
    /// `NSPersistentHistoryTrackingKey`. (The copy may be opened read-write: it is a copy.)
    private static func hasHistoryTables(_ copy: URL) -> Bool {
        guard let queue = try? DatabaseQueue(path: copy.path) else { return false }
        defer { try? queue.close() }
        return (try? queue.read { try $0.tableExists("ATRANSACTION") }) ?? false
    }
}
