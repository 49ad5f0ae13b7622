import Foundation

/// Where a migration finds the model a store was written with: among the versions of the model
/// bundle the destination model came from, as Core Data looks in the app's bundles.
enum MigrationSourceModels {
    /// The model among `candidates`, else among the versions of `model`'s bundle, whose entity
    /// hashes are those of `metadata`, frozen (its table and column names worked out); nil when
    /// none is.
    ///
    /// - Parameter cached: The store's own copy of its model (`Z_MODELCACHE`), asked last, when no
    ///   version the app ships has the store's hashes, as Core Data does.
    static func model(
        matching metadata: [String: Any], besides model: NSManagedObjectModel, candidates: [NSManagedObjectModel] = [],
        cached: () -> NSManagedObjectModel? = { nil }
    ) -> NSManagedObjectModel? {
        for candidate in candidates where StoreMetadata.hashesMatch(metadata, entities: candidate.entities) {
            if (try? candidate.freeze()) != nil { return candidate }
        }
        for url in versionFiles(besides: model) {
            guard let candidate = try? NSManagedObjectModel(validatingContentsOf: url) else { continue }
            guard StoreMetadata.hashesMatch(metadata, entities: candidate.entities), (try? candidate.freeze()) != nil else { continue }
            return candidate
        }
        if let candidate = cached(), StoreMetadata.hashesMatch(metadata, entities: candidate.entities), (try? candidate.freeze()) != nil {
            return candidate
        }
        return nil
    }

    /// The model files of every version in the bundle the model was loaded from: the `contents`
    /// files of a `.xcdatamodeld` (or of the one holding the `.xcdatamodel` it was loaded from),
    /// the `.mom` files of a compiled `.momd`; in name order.
    static func versionFiles(besides model: NSManagedObjectModel) -> [URL] {
        guard let bundle = modelBundle(of: model) else { return [] }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: bundle.path) else { return [] }
        switch bundle.pathExtension {
        case "xcdatamodeld":
            return names.filter { $0.hasSuffix(".xcdatamodel") }.sorted()
                .map { bundle.appendingPathComponent($0).appendingPathComponent("contents") }
        case "momd":
            return names.filter { $0.hasSuffix(".mom") }.sorted().map { bundle.appendingPathComponent($0) }
        default:
            return []
        }
    }

    /// The `.xcdatamodeld` or `.momd` a model version was loaded from (the folder holding it for
    /// a model file of its own), nil for a model built in code.
    static func modelBundle(of model: NSManagedObjectModel) -> URL? {
        guard var bundle = model.loadedFrom else { return nil }
        if bundle.lastPathComponent == "contents" { bundle.deleteLastPathComponent() }
        if ["xcdatamodel", "mom"].contains(bundle.pathExtension) { bundle.deleteLastPathComponent() }
        return bundle
    }
}
