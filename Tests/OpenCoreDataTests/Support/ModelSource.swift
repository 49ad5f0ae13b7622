import Foundation

/// Writes model XML into a temporary `.xcdatamodel` folder, for inputs the fixtures do not cover.
enum ModelSource {
    /// Writes `xml` as `<folder>/<name>.xcdatamodel/contents` and returns the `contents` file.
    static func write(_ xml: String, named name: String = "Test", in folder: TemporaryDirectory) throws -> URL {
        let model = folder.url.appendingPathComponent(name + ".xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        let contents = model.appendingPathComponent("contents")
        try Data(xml.utf8).write(to: contents)
        return contents
    }

    /// `entities` wrapped in the `<model>` element Xcode writes.
    static func model(_ entities: String, identifier: String? = nil) -> String {
        let version = identifier.map { " userDefinedModelVersionIdentifier=\"\($0)\"" } ?? ""
        return """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" \
            systemVersion="23E224" minimumToolsVersion="Automatic" sourceLanguage="Swift"\(version)>
            \(entities)
            </model>
            """
    }
}
