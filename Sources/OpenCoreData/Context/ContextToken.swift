/// A context as its objects refer to it: one weak reference shared by all of them.
///
/// `NSManagedObject.managedObjectContext` must turn nil when the context is released (objects do
/// not keep their context alive, as in Core Data). A weak reference in every object made each
/// registration update the context's side table; a strong reference to this token is a plain
/// retain, and the one weak reference inside it still tells a released context.
final class ContextToken {
    weak var context: NSManagedObjectContext?
    /// Whether the context has an undo manager: every change asks, and most contexts have none,
    /// so the answer is kept here rather than behind the weak reference.
    @exclusivity(unchecked) var hasUndoManager = false
    /// `NSManagedObjectContext.concurrencyDebug`, read once: every property access asks, and
    /// reading a lazily initialized static costs a call each time.
    let checksQueue = NSManagedObjectContext.concurrencyDebug

    init(_ context: NSManagedObjectContext) { self.context = context }
}
