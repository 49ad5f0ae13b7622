import Foundation

/// What a fetched results controller tells about changes to its results. Every method is optional,
/// as in Core Data: implement the ones you need.
///
/// Which methods are called, for one batch of changes (one objects-did-change notification of the
/// controller's context):
/// 1. `controller(_:didChangeContentWith:)` with a snapshot, when implemented; nothing else then.
///    It is called by `performFetch()` too, with the first results.
/// 2. Otherwise, for a controller without sections, `controller(_:didChangeContentWith:)` with a
///    `CollectionDifference` of object IDs, when implemented; nothing else then.
/// 3. Otherwise `controllerWillChangeContent(_:)`, the section changes, the object changes and
///    `controllerDidChangeContent(_:)`.
///
/// Index paths follow a table view's batch updates: `indexPath` (delete, update, where a move
/// starts) is in the results before the changes, `newIndexPath` (insert, where a move ends) in the
/// results after them.
public protocol NSFetchedResultsControllerDelegate: AnyObject {
    /// The results changed; `snapshot` holds all of them, by section name and object ID, and marks
    /// the objects that changed in place as reloaded.
    ///
    /// - Parameters:
    ///   - controller: The controller whose results changed.
    ///   - snapshot: The section names and object IDs of the results, after the change.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference)

    /// The results of a controller without sections changed, as the difference between the object
    /// IDs before and after.
    ///
    /// - Parameters:
    ///   - controller: The controller whose results changed.
    ///   - diff: The removals and insertions that turn the IDs before into the IDs after; a moved
    ///     object is removed and inserted, the two associated.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>)

    /// An object of the results was inserted, deleted, moved or updated.
    ///
    /// - Parameters:
    ///   - controller: The controller whose results changed.
    ///   - anObject: The object that changed.
    ///   - indexPath: Where the object was (delete, move, update); nil for an insert.
    ///   - type: What happened to the object.
    ///   - newIndexPath: Where the object is now (insert, move); nil for a delete or update.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
        at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?)

    /// A section was inserted or deleted. Section changes are told before object changes.
    ///
    /// - Parameters:
    ///   - controller: The controller whose results changed.
    ///   - sectionInfo: The section; a deleted one has no objects left.
    ///   - sectionIndex: Its position: before the changes for a delete, after them for an insert.
    ///   - type: `.insert` or `.delete`.
    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType)

    /// Changes are about to be told.
    ///
    /// - Parameter controller: The controller whose results change.
    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// Every change of the batch has been told.
    ///
    /// - Parameter controller: The controller whose results changed.
    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>)

    /// The section index title of a section name, in place of the controller's
    /// `sectionIndexTitle(forSectionName:)`.
    ///
    /// - Parameters:
    ///   - controller: The controller asking.
    ///   - sectionName: The section's name.
    /// - Returns: The title for the section index.
    func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String?
}

// Swift has no optional protocol methods off Apple platforms. These defaults stand for "not
// implemented": each tells the controller it ran, so that the controller knows which of the
// exclusive ways (snapshot, difference, per-change) the delegate takes and which title to use.
extension NSFetchedResultsControllerDelegate {
    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith snapshot: NSDiffableDataSourceSnapshotReference
    ) {
        controller.engine.defaultImplementationRan = true
    }

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>,
        didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
    ) {
        controller.engine.defaultImplementationRan = true
    }

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
        at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {}

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {}

    public func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {}

    public func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String
    ) -> String? {
        controller.engine.defaultImplementationRan = true
        return nil
    }
}
