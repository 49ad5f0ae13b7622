import Foundation

/// The stores and models written by Apple's Core Data that the tests read, in
/// `Tests/Fixtures/AppleCoreData/` (data with their licence and README), read in place: a test
/// that writes copies the file into its temporary directory first.
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

    /// `Tests/Fixtures/AppleCoreData/` in the package.
    static let root: URL = packageRoot
        .appendingPathComponent("Tests/Fixtures/AppleCoreData", isDirectory: true)

    /// A fixture by its path relative to `root`, e.g. `"SampleModel/SampleModel.xcdatamodeld"`.
    static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }
}
