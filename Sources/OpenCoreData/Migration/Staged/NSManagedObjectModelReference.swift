import Foundation

/// A model version a custom migration stage names: given as a model, a file, a name in a bundle
/// or the entity hashes of a version in a bundle, and checked against its `versionChecksum`.
open class NSManagedObjectModelReference: NSObject {
    /// The checksum the referenced model must have.
    public let versionChecksum: String
    private let source: Source
    private var resolution: Result<NSManagedObjectModel, NSError>?

    private enum Source {
        case model(NSManagedObjectModel)
        case file(URL)
        case hashes([String: Data], Bundle?)
        case name(String, Bundle?)
    }

    /// A reference to a model the app built or loaded.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - versionChecksum: Its `versionChecksum`.
    public init(model: NSManagedObjectModel, versionChecksum: String) {
        self.source = .model(model)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the model in a file: a `.mom`, a `.momd` (its current version), a
    /// `.xcdatamodeld` (its current version) or a `.xcdatamodel`.
    ///
    /// - Parameters:
    ///   - fileURL: The model file.
    ///   - versionChecksum: The model's `versionChecksum`.
    public init(fileURL: URL, versionChecksum: String) {
        self.source = .file(fileURL)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the version, among the models in `bundle`, whose entities hash as given.
    ///
    /// - Parameters:
    ///   - entityVersionHashes: The version's entity hashes by entity name (a store's
    ///     `NSStoreModelVersionHashes`).
    ///   - bundle: Where to look; the main bundle when nil.
    ///   - versionChecksum: The model's `versionChecksum`.
    public init(entityVersionHashes: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
        var hashes: [String: Data] = [:]
        for case let (name as String, hash as Data) in entityVersionHashes { hashes[name] = hash }
        self.source = .hashes(hashes, bundle)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// A reference to the model named `modelName` in `bundle`: a `.momd` or `.xcdatamodeld` of
    /// that name (its current version), or a version of that name inside one.
    ///
    /// - Parameters:
    ///   - modelName: The model's or the version's file name, without extension.
    ///   - bundle: Where to look; the main bundle when nil.
    ///   - versionChecksum: The model's `versionChecksum`.
    public init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
        self.source = .name(modelName, bundle)
        self.versionChecksum = versionChecksum
        super.init()
    }

    /// The referenced model; an empty model when it cannot be found or its checksum differs, in
    /// which case the migration that needs it fails with `NSManagedObjectModelReferenceNotFoundError`.
    open var resolvedModel: NSManagedObjectModel { (try? resolve()) ?? NSManagedObjectModel() }

    /// The referenced model, found once.
    ///
    /// - Throws: `NSManagedObjectModelReferenceNotFoundError` (134504) when no such model exists
    ///   or its checksum is not `versionChecksum`.
    func resolve() throws -> NSManagedObjectModel {
        if let resolution { return try resolution.get() }
        let result: Result<NSManagedObjectModel, NSError>
        if let model = find(), model.versionChecksum == versionChecksum {
            result = .success(model)
        } else {
            result = .failure(
                CoreDataError.make(
                    NSManagedObjectModelReferenceNotFoundError,
                    "No model with version checksum \(versionChecksum) was found for a migration stage (\(describeSource)).",
                    userInfo: ["versionChecksum": versionChecksum]))
        }
        resolution = result
        return try result.get()
    }

    private func find() -> NSManagedObjectModel? {
        switch source {
        case .model(let model):
            return model
        case .file(let url):
            return try? NSManagedObjectModel(validatingContentsOf: url)
        case .hashes(let hashes, let bundle):
            return ModelVersionCatalog.versions(in: bundle ?? .main).lazy
                .compactMap { try? NSManagedObjectModel(validatingContentsOf: $0) }
                .first { $0.entityVersionHashesByName == hashes }
        case .name(let name, let bundle):
            return ModelVersionCatalog.model(named: name, in: bundle ?? .main)
        }
    }

    private var describeSource: String {
        switch source {
        case .model: "a model object"
        case .file(let url): "file \(url.path)"
        case .hashes(_, let bundle): "entity hashes in \((bundle ?? .main).bundlePath)"
        case .name(let name, let bundle): "model \(name) in \((bundle ?? .main).bundlePath)"
        }
    }
}
