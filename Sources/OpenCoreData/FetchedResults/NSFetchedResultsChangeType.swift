/// What happened to an object or a section of a fetched results controller's results, as its
/// delegate is told.
public enum NSFetchedResultsChangeType: UInt, Sendable {
    /// The object or section is new in the results: created, or changed so that it matches now.
    case insert = 1
    /// The object or section left the results: deleted, or changed so that it no longer matches.
    case delete = 2
    /// The object changed in a way that moved it: `indexPath` is where it was, `newIndexPath`
    /// where it is now (an update is implied).
    case move = 3
    /// The object changed without moving.
    case update = 4
}
