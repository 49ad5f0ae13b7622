import Foundation

/// Compiled mapping models: the `.cdm` files Xcode makes of `.xcmappingmodel`s and puts in an app
/// bundle, read on any platform.
extension NSMappingModel {
    /// Loads the compiled mapping model (`.cdm`) at `url`; nil when there is none or it cannot be
    /// read.
    ///
    /// - Parameter url: A `.cdm` file.
    public convenience init?(contentsOf url: URL?) {
        guard let url, let data = try? Data(contentsOf: url), let mappings = try? MappingModelArchiveReader.read(data) else { return nil }
        self.init()
        entityMappings = mappings
    }

    /// Finds, among the compiled mapping models in `bundles`, the one from `sourceModel` to
    /// `destinationModel`: every entity mapping's source and destination entity hashes are those
    /// of the two models, and it maps to every destination entity.
    ///
    /// - Parameters:
    ///   - bundles: The bundles to search; the main bundle when nil.
    ///   - sourceModel: The model a store was written with.
    ///   - destinationModel: The model to migrate to.
    public convenience init?(from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?) {
        guard let sourceModel, let destinationModel else { return nil }
        let files = (bundles ?? [.main]).flatMap { Self.compiledMappingFiles(in: $0) }
        guard let found = Self.mapping(among: files, from: sourceModel, to: destinationModel) else { return nil }
        self.init()
        entityMappings = found.entityMappings
    }

    /// The first of `files` that maps `source` to `destination`.
    static func mapping(among files: [URL], from source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> NSMappingModel? {
        for file in files {
            if let model = NSMappingModel(contentsOf: file), model.maps(source, to: destination) { return model }
        }
        return nil
    }

    /// The `.cdm` files at the top of a bundle's resources, in name order.
    static func compiledMappingFiles(in bundle: Bundle) -> [URL] {
        ModelVersionCatalog.resources(in: bundle, withExtensions: ["cdm"])
    }

    /// The `.cdm` files in `folder`, in name order.
    static func compiledMappingFiles(inFolder folder: URL) -> [URL] {
        ModelVersionCatalog.files(in: folder, withExtensions: ["cdm"])
    }

    /// Whether this mapping model was made for these two models.
    func maps(_ source: NSManagedObjectModel, to destination: NSManagedObjectModel) -> Bool {
        let sourceHashes = source.entityVersionHashesByName
        let destinationHashes = destination.entityVersionHashesByName
        var mapped = Set<String>()
        for mapping in entityMappings ?? [] {
            if let name = mapping.sourceEntityName {
                guard let hash = sourceHashes[name], mapping.sourceEntityVersionHash.map({ $0 == hash }) ?? true else { return false }
            }
            if let name = mapping.destinationEntityName {
                guard let hash = destinationHashes[name], mapping.destinationEntityVersionHash.map({ $0 == hash }) ?? true else { return false }
                mapped.insert(name)
            }
        }
        return mapped == Set(destinationHashes.keys)
    }
}
