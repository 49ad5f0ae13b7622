/// Loading a model from Xcode's source format, with no compiled `.momd` needed.
extension NSManagedObjectModel {
    /// Loads the model at `url`: a `.xcdatamodeld` folder (its current version, per
    /// `.xccurrentversion`), a `.xcdatamodel` folder, or its `contents` XML file. Nil when the file
    /// is missing or malformed; `init(validatingContentsOf:)` says why.
    ///
    /// - Parameter url: A file URL of a `.xcdatamodeld` bundle, a `.xcdatamodel` folder, or a
    ///   model's `contents` file.
    public convenience init?(contentsOf url: URL) {
        guard let loaded = try? XcodeModelLoader.load(url) else { return nil }
        self.init(copying: loaded)
    }

    /// Loads the model at `url` like `init(contentsOf:)`, throwing an error that names the file and
    /// what is wrong with it instead of returning nil.
    ///
    /// - Parameter url: A file URL of a `.xcdatamodeld` bundle, a `.xcdatamodel` folder, or a
    ///   model's `contents` file.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain`, with the file's path under `NSFilePathErrorKey`:
    ///   `NSFileReadNoSuchFileError` for a missing file, `NSFileReadCorruptFileError` for
    ///   malformed XML or content the loader does not understand, `NSFileReadUnknownError` for a
    ///   file that exists but cannot be read.
    public convenience init(validatingContentsOf url: URL) throws {
        self.init(copying: try XcodeModelLoader.load(url))
    }

    /// Loads one named version of a `.xcdatamodeld` bundle (`"SampleModel2"` or
    /// `"SampleModel2.xcdatamodel"`).
    ///
    /// - Parameters:
    ///   - url: A file URL of a `.xcdatamodeld` bundle. A `.xcdatamodel` folder or `contents` file is
    ///     accepted too when it is the version named.
    ///   - versionName: The version to load, with or without the `.xcdatamodel` extension.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain`, with the file's path under `NSFilePathErrorKey`:
    ///   `NSFileReadNoSuchFileError` when the file or the named version does not exist,
    ///   `NSFileReadCorruptFileError` for malformed XML or content the loader does not understand,
    ///   `NSFileReadUnknownError` for a file that exists but cannot be read.
    public convenience init(contentsOf url: URL, versionName: String) throws {
        self.init(copying: try XcodeModelLoader.load(url, versionName: versionName))
    }

    /// Takes over the entities and settings of a freshly loaded model.
    private convenience init(copying other: NSManagedObjectModel) {
        self.init()
        takeOver(other)
    }

    /// Property observers do not run in an initializer, so the move happens in a method: there,
    /// the `entities` observer makes this model the entities' owner. Otherwise they would keep
    /// pointing at `other`, which is freed when loading returns.
    private func takeOver(_ other: NSManagedObjectModel) {
        let entities = other.entities
        other.entities = []
        self.entities = entities
        self.versionIdentifiers = other.versionIdentifiers
        for name in other.configurations {
            setEntities(other.entities(forConfigurationName: name) ?? [], forConfigurationName: name)
        }
        for (name, template) in other.fetchRequestTemplatesByName { setFetchRequestTemplate(template, forName: name) }
        fetchRequestTemplatePredicateStrings = other.fetchRequestTemplatePredicateStrings
    }
}
