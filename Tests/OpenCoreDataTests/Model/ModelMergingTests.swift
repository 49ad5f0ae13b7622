import Foundation
import Testing

@testable import OpenCoreData

/// A merged model must own its entities even after the models it came from are gone: entities
/// only keep an unretained pointer to their model.
@Suite struct ModelMergingTests {
    @Test func aMergedModelOwnsItsEntities() throws {
        let merged = try #require(
            NSManagedObjectModel(byMerging: [
                try FixtureModelVersion.sampleModel3("SampleModel3").load(),
                try NSManagedObjectModel(validatingContentsOf: Fixtures.url("SampleModel/SampleModel.xcdatamodeld")),
            ]))
        #expect(merged.entities.compactMap(\.name).sorted() == ["Car", "ExpensiveSportCar", "Person", "SportCar", "User"])
        #expect(merged.entities.allSatisfy { $0.managedObjectModel === merged })
        try merged.freeze()
    }
}
