import Foundation

/// The model files a bundle holds, for the migration stages that name a model by its name or
/// hashes instead of handing it over.
enum ModelVersionCatalog {
    /// Every model version in `bundle`'s resources: the `.mom` files of each `.momd`, the
    /// versions of each `.xcdatamodeld`, and loose `.mom` files; in name order.
    static func versions(in bundle: Bundle) -> [URL] {
        var files: [URL] = []
        for folder in containers(in: bundle) {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            if folder.pathExtension == "momd" {
                files += names.filter { $0.hasSuffix(".mom") }.map { folder.appendingPathComponent($0) }
            } else {
                files += names.filter { $0.hasSuffix(".xcdatamodel") }.map { folder.appendingPathComponent($0) }
            }
        }
        files += resources(in: bundle, withExtensions: ["mom"])
        return files
    }

    /// The model named `name` in `bundle`: a `.momd` or `.xcdatamodeld` of that name (its current
    /// version), else a version of that name inside one.
    static func model(named name: String, in bundle: Bundle) -> NSManagedObjectModel? {
        for container in containers(in: bundle) where container.deletingPathExtension().lastPathComponent == name {
            if let model = try? NSManagedObjectModel(validatingContentsOf: container) { return model }
        }
        for file in versions(in: bundle) where file.deletingPathExtension().lastPathComponent == name {
            if let model = try? NSManagedObjectModel(validatingContentsOf: file) { return model }
        }
        return nil
    }

    /// The `.momd` and `.xcdatamodeld` folders among the bundle's resources.
    private static func containers(in bundle: Bundle) -> [URL] {
        resources(in: bundle, withExtensions: ["momd", "xcdatamodeld"])
    }

    /// The files at the top of the bundle's resources with one of `extensions`, in name order.
    static func resources(in bundle: Bundle, withExtensions extensions: Set<String>) -> [URL] {
        files(in: bundle.resourceURL ?? bundle.bundleURL, withExtensions: extensions)
    }

    /// The files at the top of `folder` with one of `extensions`, in name order.
    static func files(in folder: URL, withExtensions extensions: Set<String>) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }.filter { extensions.contains($0.pathExtension) }
    }
}
