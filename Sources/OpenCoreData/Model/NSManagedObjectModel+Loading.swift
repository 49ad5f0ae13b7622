/// Loading a model from Xcode's source format, or from the compiled `.momd` / `.mom` files Xcode
/// puts in an app bundle.
extension NSManagedObjectModel {
    /// Loads the model at `url`: a `.xcdatamodeld` folder (its current version, per
    /// `.xccurrentversion`), a `.xcdatamodel` folder or its `contents` XML file, a compiled `.momd`
    /// folder (its current version, per `VersionInfo.plist`) or `.mom` file. Nil when the file is
    /// missing or malformed; `init(validatingContentsOf:)` says why.
    ///
    /// - Parameter url: A file URL of a `.xcdatamodeld` bundle, a `.xcdatamodel` folder, a model's
    ///   `contents` file, a `.momd` folder or a `.mom` file.
    public convenience init?(contentsOf url: URL) {
        guard let loaded = try? XcodeModelLoader.load(url) else { return nil }
        self.init(copying: loaded, from: url)
    }

    /// Loads the model at `url` like `init(contentsOf:)`, throwing an error that names the file and
    /// what is wrong with it instead of returning nil.
    ///
    /// - Parameter url: A file URL of a `.xcdatamodeld` bundle, a `.xcdatamodel` folder, a model's
    ///   `contents` file, a `.momd` folder or a `.mom` file.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain`, with the file's path under `NSFilePathErrorKey`:
    ///   `NSFileReadNoSuchFileError` for a missing file, `NSFileReadCorruptFileError` for
    ///   malformed XML or content the loader does not understand, `NSFileReadUnknownError` for a
    ///   file that exists but cannot be read.
    public convenience init(validatingContentsOf url: URL) throws {
        self.init(copying: try XcodeModelLoader.load(url), from: url)
    }

    /// Loads one named version of a `.xcdatamodeld` bundle (`"SampleModel2"` or
    /// `"SampleModel2.xcdatamodel"`) or of a compiled `.momd` folder (`"SampleModel2"` or
    /// `"SampleModel2.mom"`).
    ///
    /// - Parameters:
    ///   - url: A file URL of a `.xcdatamodeld` bundle or `.momd` folder. A `.xcdatamodel` folder,
    ///     `contents` file or `.mom` file is accepted too when it is the version named.
    ///   - versionName: The version to load, with or without the `.xcdatamodel` or `.mom` extension.
    /// - Throws: An `NSError` in `NSCocoaErrorDomain`, with the file's path under `NSFilePathErrorKey`:
    ///   `NSFileReadNoSuchFileError` when the file or the named version does not exist,
    ///   `NSFileReadCorruptFileError` for malformed XML or content the loader does not understand,
    ///   `NSFileReadUnknownError` for a file that exists but cannot be read.
    public convenience init(contentsOf url: URL, versionName: String) throws {
        self.init(copying: try XcodeModelLoader.load(url, versionName: versionName), from: url)
    }

    /// Takes over the entities and settings of a freshly loaded model.
    private convenience init(copying other: NSManagedObjectModel, from url: URL) {
        self.init()
        takeOver(other)
        classModules = Self.moduleNames(besides: url)
        loadedFrom = url.standardizedFileURL
    }

    /// The modules whose classes the model's entities may name without a module, found from
    /// where the model lies: Xcode compiles `$(PRODUCT_MODULE_NAME).Item` and bare `Item` into
    /// the app's module; a SwiftPM target's resources lie in a bundle named `Package_Target`
    /// (`.resources` on Linux, `.bundle` on Apple platforms), whose target is the module; and an
    /// executable's module is its own name.
    static func moduleNames(besides url: URL) -> [String] {
        var names: [String] = []
        for component in url.standardizedFileURL.pathComponents.reversed() {
            guard component.hasSuffix(".resources") || component.hasSuffix(".bundle") else { continue }
            // Package and target names may both hold underscores: every split is a candidate.
            var bundle = component.split(separator: ".").dropLast().joined(separator: ".")
            // SwiftPM builds a second, host copy of targets a package's macros or plugins need,
            // its bundle named `<Package>_<Target>-tool`: the module is still `<Target>`.
            if bundle.hasSuffix("-tool") { bundle.removeLast("-tool".count) }
            var rest = Substring(bundle)
            while let underscore = rest.firstIndex(of: "_") {
                rest = rest[rest.index(after: underscore)...]
                if !rest.isEmpty { names.append(String(rest)) }
            }
            break
        }
        names.append(ProcessInfo.processInfo.processName)
        // A module's name is its target's with characters Swift does not allow as underscores.
        return names.map { String($0.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" }) }
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
