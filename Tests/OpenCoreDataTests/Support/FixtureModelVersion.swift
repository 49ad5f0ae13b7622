import Foundation
import Testing

@testable import OpenCoreData

/// One version of a fixture `.xcdatamodeld`, with the `.momd` in which Xcode recorded its hashes.
struct FixtureModelVersion: Sendable, CustomTestStringConvertible {
    let bundle: String
    let momd: String
    let version: String

    var testDescription: String {
        URL(fileURLWithPath: bundle).deletingPathExtension().lastPathComponent + "/" + version
    }

    func load() throws -> NSManagedObjectModel {
        try NSManagedObjectModel(contentsOf: Fixtures.url(bundle), versionName: version)
    }

    static let sampleModelBundle = "SampleModel/SampleModel.xcdatamodeld"
    static let sampleModel3Bundle = "SampleModel3/SampleModel3.xcdatamodeld"

    static func sampleModel(_ version: String) -> FixtureModelVersion {
        FixtureModelVersion(bundle: sampleModelBundle, momd: "SampleModel/Fixtures/SampleModel.momd", version: version)
    }

    static func sampleModel3(_ version: String) -> FixtureModelVersion {
        FixtureModelVersion(bundle: sampleModel3Bundle, momd: "SampleModel3/Fixtures/SampleModel3.momd", version: version)
    }

    /// Every model version among the fixtures.
    static let all: [FixtureModelVersion] = [
        sampleModel("SampleModel"), sampleModel("SampleModel2"), sampleModel("SampleModel3"),
        sampleModel3("SampleModel3"), sampleModel3("SampleModel3_v2"), sampleModel3("SampleModel3_v3"),
    ]
}
