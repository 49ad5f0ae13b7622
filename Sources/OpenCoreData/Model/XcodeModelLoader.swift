/// Reads Xcode's `.xcdatamodeld` / `.xcdatamodel` / `contents` model source (format notes §12).
enum XcodeModelLoader {
    static func load(_ url: URL, versionName: String? = nil) throws -> NSManagedObjectModel {
        throw CoreDataError.make(NSFileReadCorruptFileError, "Model loading is not implemented yet: \(url.path)")
    }
}
