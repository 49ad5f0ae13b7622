/// Reads Xcode's `.xcdatamodeld` / `.xcdatamodel` / `contents` model source (docs/sqlite-format.md §12)
/// and the compiled `.momd` / `.mom` files an app bundle ships.
enum XcodeModelLoader {
    static func load(_ url: URL, versionName: String? = nil) throws -> NSManagedObjectModel {
        let contents = try contentsFile(for: url.standardizedFileURL, versionName: versionName)
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            throw unreadable(contents, error)
        }
        return try model(from: data, file: contents)
    }

    /// The model in `data`, the text of a `contents` file; `file` is named in errors.
    static func model(from data: Data, file: URL) throws -> NSManagedObjectModel {
        if CompiledModelReader.looksCompiled(data) {
            let compiled: CompiledModelReader.Result
            do {
                compiled = try CompiledModelReader.read(data)
            } catch {
                throw corrupt(file, line: nil, error.message)
            }
            let model = try XcodeModelBuilder(file: file).model(from: compiled.root)
            model.versionIdentifiers = compiled.versionIdentifiers
            return model
        }
        let root: ModelXMLElement
        do {
            root = try ModelXMLReader.parse(data)
        } catch {
            throw corrupt(file, line: error.line, error.message, underlying: error.underlying)
        }
        return try XcodeModelBuilder(file: file).model(from: root)
    }

    /// The `contents` file that `url` designates, picking the version of a `.xcdatamodeld` bundle.
    static func contentsFile(for url: URL, versionName: String?) throws -> URL {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw missing(url, "No model file at \(url.path).")
        }
        guard isFolder.boolValue else {
            if let versionName {
                if url.pathExtension == "mom" {
                    try check(versionName, matchesCompiled: url)
                } else {
                    try check(versionName, matches: url.deletingLastPathComponent(), in: url)
                }
            }
            return url
        }
        if url.pathExtension == "xcdatamodeld" {
            return try versionFolder(in: url, named: versionName).appendingPathComponent("contents")
        }
        if url.pathExtension == "momd" {
            return try compiledVersion(in: url, named: versionName)
        }
        if let versionName { try check(versionName, matches: url, in: url) }
        let contents = url.appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: contents.path) else {
            throw missing(contents, "The model folder \(url.path) has no contents file.")
        }
        return contents
    }

    /// The requested version, else the one `.xccurrentversion` names, else the only one there is.
    private static func versionFolder(in bundle: URL, named versionName: String?) throws -> URL {
        let versions = modelVersions(in: bundle)
        let wanted: String
        if let versionName {
            wanted = versionName
        } else if let current = try currentVersionName(in: bundle) {
            wanted = current
        } else if versions.count == 1 {
            wanted = versions[0]
        } else {
            throw corrupt(
                bundle, line: nil,
                "it has \(versions.count) model versions (\(versions.joined(separator: ", "))) and no .xccurrentversion to choose one")
        }
        let version = wanted.hasSuffix(".xcdatamodel") ? String(wanted.dropLast(".xcdatamodel".count)) : wanted
        let folder = bundle.appendingPathComponent(version + ".xcdatamodel", isDirectory: true)
        guard versions.contains(version) else {
            throw missing(
                folder,
                "The model \(bundle.path) has no version named \(wanted); it has \(versions.joined(separator: ", ")).")
        }
        let contents = folder.appendingPathComponent("contents")
        guard FileManager.default.fileExists(atPath: contents.path) else {
            throw missing(contents, "The model version \(folder.path) has no contents file.")
        }
        return folder
    }

    /// The `.mom` file of the requested version of a compiled `.momd` folder, else of the one its
    /// `VersionInfo.plist` calls current, else of the only one there is.
    private static func compiledVersion(in folder: URL, named versionName: String?) throws -> URL {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".mom") }.map { String($0.dropLast(".mom".count)) }.sorted()
        let wanted: String
        if let versionName {
            wanted = versionName.hasSuffix(".mom") ? String(versionName.dropLast(".mom".count)) : versionName
        } else if let current = try currentCompiledVersionName(in: folder) {
            wanted = current
        } else if names.count == 1 {
            wanted = names[0]
        } else {
            throw corrupt(
                folder, line: nil,
                "it has \(names.count) compiled model versions (\(names.joined(separator: ", "))) and no VersionInfo.plist to choose one")
        }
        let file = folder.appendingPathComponent(wanted + ".mom")
        guard names.contains(wanted) else {
            throw missing(file, "The model \(folder.path) has no version named \(wanted); it has \(names.joined(separator: ", ")).")
        }
        return file
    }

    /// `NSManagedObjectModel_CurrentVersionName` of a `.momd`'s `VersionInfo.plist`, when it has one.
    private static func currentCompiledVersionName(in folder: URL) throws -> String? {
        try versionName(in: folder.appendingPathComponent("VersionInfo.plist"), key: "NSManagedObjectModel_CurrentVersionName")
    }

    /// Version names (without `.xcdatamodel`) in the bundle, sorted for stable messages.
    private static func modelVersions(in bundle: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? []
        return names.filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }.sorted()
    }

    private static func currentVersionName(in bundle: URL) throws -> String? {
        try versionName(in: bundle.appendingPathComponent(".xccurrentversion"), key: "_XCCurrentVersionName")
    }

    /// The non-empty string under `key` in the property list `file`; nil when there is no file.
    private static func versionName(in file: URL, key: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw unreadable(file, error)
        }
        guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil),
            let name = (plist as? [String: Any])?[key] as? String, !name.isEmpty
        else {
            throw corrupt(file, line: nil, "it is not a property list with a \(key) string")
        }
        return name
    }

    /// A version name given for a single-version model must name that model, or the caller would
    /// silently get another version than the one asked for.
    private static func check(_ versionName: String, matches folder: URL, in url: URL) throws {
        let name = versionName.hasSuffix(".xcdatamodel") ? versionName : versionName + ".xcdatamodel"
        guard folder.lastPathComponent == name else {
            throw missing(url, "The model \(url.path) is not a version named \(versionName).")
        }
    }

    /// The same for a compiled `.mom` file, whose own name is the version's.
    private static func check(_ versionName: String, matchesCompiled file: URL) throws {
        let name = versionName.hasSuffix(".mom") ? versionName : versionName + ".mom"
        guard file.lastPathComponent == name else {
            throw missing(file, "The model \(file.path) is not a version named \(versionName).")
        }
    }

    // MARK: Errors

    static func missing(_ url: URL, _ message: String) -> NSError {
        CoreDataError.make(NSFileReadNoSuchFileError, message, userInfo: [NSFilePathErrorKey: url.path])
    }

    static func corrupt(_ url: URL, line: Int?, _ problem: String, underlying: Error? = nil) -> NSError {
        var info: [String: Any] = [NSFilePathErrorKey: url.path]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        let place = line.flatMap { $0 > 0 ? "\(url.path), line \($0)" : nil } ?? url.path
        return CoreDataError.make(NSFileReadCorruptFileError, "The model file \(place) is invalid: \(problem).", userInfo: info)
    }

    private static func unreadable(_ url: URL, _ error: Error) -> NSError {
        if !FileManager.default.fileExists(atPath: url.path) {
            return missing(url, "No model file at \(url.path).")
        }
        var info: [String: Any] = [NSFilePathErrorKey: url.path]
        info[NSUnderlyingErrorKey] = error
        return CoreDataError.make(NSFileReadUnknownError, "The model file \(url.path) could not be read.", userInfo: info)
    }
}
