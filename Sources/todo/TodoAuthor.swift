import Foundation
import OpenCoreData

extension NSPersistentContainer {
    /// A background context whose saves this process signs as their transaction author, so
    /// that `todo watch` knows which process made a change.
    func newTodoContext() -> NSManagedObjectContext {
        let context = newBackgroundContext()
        context.transactionAuthor = TodoStore.author
        return context
    }
}

extension TodoStore {
    /// The transaction author of this process's saves: the program and its process number.
    static let author = "todo.\(ProcessInfo.processInfo.processIdentifier)"
}
