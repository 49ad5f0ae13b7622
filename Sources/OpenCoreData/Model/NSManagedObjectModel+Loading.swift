/// Loading a model from Xcode's source format, with no compiled `.momd` needed.
extension NSManagedObjectModel {
    /// Loads the model at `url`: a `.xcdatamodeld` folder (its current version, per
    /// `.xccurrentversion`), a `.xcdatamodel` folder, or its `contents` XML file. Nil when the file
    /// is missing or malformed; `init(validatingContentsOf:)` says why.
    public convenience init?(contentsOf url: URL) {
        guard let loaded = try? XcodeModelLoader.load(url) else { return nil }
        self.init(copying: loaded)
    }

    /// Loads the model at `url` like `init(contentsOf:)`, throwing an error that names the file and
    /// what is wrong with it instead of returning nil.
    ///
    /// - Throws: `NSFileReadNoSuchFileError` for a missing file, `NSFileReadCorruptFileError` for
    ///   malformed XML or content the loader does not understand.
    public convenience init(validatingContentsOf url: URL) throws {
        self.init(copying: try XcodeModelLoader.load(url))
    }

    /// Loads one named version of a `.xcdatamodeld` bundle (`"SampleModel2"` or
    /// `"SampleModel2.xcdatamodel"`).
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
