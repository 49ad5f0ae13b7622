import Foundation
import Testing
@testable import OpenCoreData

/// Two containers of one model file in one process (an app and its watcher, tests): a request
/// naming the entity of one model runs against the other's coordinator, as the entity of that
/// model with the same name and version hash.
@Suite struct EntityOfAnotherModelTests {
    @Test func fetchesAndBatchRequestsTakeTheSameEntityOfTheCoordinatorsModel() throws {
        let directory = TemporaryDirectory()
        let other = TestModels.todo()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let foreign = try #require(other.entitiesByName["TSPItem"])
        try stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue("Milk", forKey: "name")
            try stack.context.save()
            let fetch = NSFetchRequest<NSManagedObject>()
            fetch.entity = foreign
            #expect(try stack.context.fetch(fetch).map { $0.value(forKey: "name") as? String } == ["Milk"])
            let delete = NSFetchRequest<NSFetchRequestResult>()
            delete.entity = foreign
            let request = NSBatchDeleteRequest(fetchRequest: delete)
            request.resultType = .resultTypeCount
            #expect((try stack.context.execute(request) as? NSBatchDeleteResult)?.result as? Int == 1)
        }
    }

    @Test func anEntityThatDiffersIsStillRefused() throws {
        let directory = TemporaryDirectory()
        let other = TestModels.todo()
        (other.entitiesByName["TSPItem"]!.propertiesByName["name"] as! NSAttributeDescription).isOptional = false
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let delete = NSFetchRequest<NSFetchRequestResult>()
        delete.entity = other.entitiesByName["TSPItem"]
        stack.context.performAndWait {
            _ = #expect(throws: NSError.self) { try stack.context.execute(NSBatchDeleteRequest(fetchRequest: delete)) }
        }
    }
}
