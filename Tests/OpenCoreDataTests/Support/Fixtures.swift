import Foundation

/// The shared Apple Core Data fixtures, read in place from `../shared/fixtures/apple-core-data/`
/// next to the package so that they are never copied into the repository.
enum Fixtures {
    /// The package root: the nearest folder above this file that holds `Package.swift`.
    static let packageRoot: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder
            }
            folder = folder.deletingLastPathComponent()
        }
        fatalError("No Package.swift above \(#filePath)")
    }()

    /// `shared/fixtures/apple-core-data/`, beside the package.
    static let root: URL = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/apple-core-data", isDirectory: true)

    /// A fixture by its path relative to `root`, e.g. `"SampleModel/SampleModel.xcdatamodeld"`.
    static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }
}
