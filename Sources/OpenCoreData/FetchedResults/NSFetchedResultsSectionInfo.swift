/// One section of a fetched results controller's results: a run of objects with the same value at
/// the controller's `sectionNameKeyPath` (or all the results, without one).
public protocol NSFetchedResultsSectionInfo: AnyObject {
    /// The section's name: the objects' value at the section name key path, as a string.
    var name: String { get }
    /// The section's title in a section index.
    var indexTitle: String? { get }
    /// How many objects the section holds.
    var numberOfObjects: Int { get }
    /// The section's objects, in the results' order.
    var objects: [Any]? { get }
}

/// A section of a controller's results: where its objects start in the results and how many there
/// are. The same instance stands for a name as long as the section exists, so that a delegate told
/// of a deleted section sees it empty, and one told of an inserted section sees its objects.
final class FetchedResultsSection: NSFetchedResultsSectionInfo {
    let name: String
    let indexTitle: String?
    /// The offset of the section's first object in the results.
    var start: Int
    var numberOfObjects: Int
    // Weak: a section a caller keeps may outlive its controller, and then reads as empty.
    private weak var results: FetchedResultsEngine?

    init(name: String, indexTitle: String?, start: Int, count: Int, results: FetchedResultsEngine) {
        self.name = name
        self.indexTitle = indexTitle
        self.start = start
        self.numberOfObjects = count
        self.results = results
    }

    var objects: [Any]? { Array(managedObjects) }

    /// The section's objects, sharing the results' storage.
    var managedObjects: ArraySlice<NSManagedObject> {
        guard numberOfObjects > 0, let all = results?.objects, start + numberOfObjects <= all.count else { return [] }
        return all[start..<(start + numberOfObjects)]
    }
}
