import Foundation
import GRDB
import Testing
@testable import OpenCoreData

/// Primary keys at the limit of Int64, as a damaged or hostile store may hold them.
@Suite struct PrimaryKeyLimitTests {
    private func insert(_ name: String, into context: NSManagedObjectContext) {
        NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context).setValue(name, forKey: "name")
    }

    /// A store whose Z_MAX cannot be advanced (a damaged or hostile file) refuses the save with an
    /// error instead of trapping on the overflow.
    @Test func aZMaxAtTheTopOfInt64RefusesTheSave() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try (stack.store as! SQLiteStore).pool!.write { db in
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ?", arguments: [Int64.max])
        }
        let error = stack.context.performAndWait { () -> NSError? in
            insert("milk", into: stack.context)
            do {
                try stack.context.save()
                return nil
            } catch {
                return error as NSError
            }
        }
        #expect(error?.code == NSPersistentStoreSaveError, "\(String(describing: error))")
        let batch = stack.context.performAndWait { () -> NSError? in
            let request = NSBatchInsertRequest(entityName: "TSPItem", objects: [["name": "eggs"]])
            do {
                _ = try stack.context.execute(request)
                return nil
            } catch {
                return error as NSError
            }
        }
        #expect(batch?.code == NSPersistentStoreSaveError, "\(String(describing: batch))")
    }
}
