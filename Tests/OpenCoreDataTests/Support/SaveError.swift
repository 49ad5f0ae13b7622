import Foundation
@testable import OpenCoreData

extension NSManagedObjectContext {
    /// Saves on the context's queue; the error the save threw, or nil when it succeeded.
    func saveError() -> NSError? {
        performAndWait {
            do {
                try save()
                return nil
            } catch {
                return error as NSError
            }
        }
    }
}
