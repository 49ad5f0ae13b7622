import Foundation

/// The results of a fetched results controller as a diffable data source takes them: section names
/// and, in each section, the object IDs, in order. What a controller hands to
/// `controller(_:didChangeContentWith:)`.
///
/// UIKit and AppKit own this class on Apple platforms, where Swift code casts it to
/// `NSDiffableDataSourceSnapshot<String, NSManagedObjectID>`; off Apple platforms there is no such
/// struct, and the class itself answers (see docs/compatibility.md). The identifiers are worked out
/// the first time they are asked for: a delegate that ignores the snapshot costs nothing.
public final class NSDiffableDataSourceSnapshotReference: NSObject {
    private let objects: [NSManagedObject]
    private let ranges: [(name: String, start: Int, count: Int)]
    private let reloaded: [NSManagedObject]
    private lazy var ids: [NSManagedObjectID] = objects.map(\.objectID)

    init(objects: [NSManagedObject], ranges: [(name: String, start: Int, count: Int)], reloaded: [NSManagedObject]) {
        self.objects = objects
        self.ranges = ranges
        self.reloaded = reloaded
    }

    /// How many items (objects) the snapshot holds.
    public var numberOfItems: Int { objects.count }
    /// How many sections the snapshot holds.
    public var numberOfSections: Int { ranges.count }
    /// The section identifiers (section names, `String`), in order.
    public var sectionIdentifiers: [Any] { ranges.map(\.name) }
    /// Every item identifier (`NSManagedObjectID`), section after section.
    public var itemIdentifiers: [Any] { ids }
    /// The items that changed in place since the last snapshot, to reload.
    public var reloadedItemIdentifiers: [Any] { reloaded.map(\.objectID) }
    /// The items to reconfigure: the same as `reloadedItemIdentifiers`, as a controller marks them.
    public var reconfiguredItemIdentifiers: [Any] { reloadedItemIdentifiers }

    /// The number of items in a section.
    ///
    /// - Parameter sectionIdentifier: A section name.
    /// - Returns: How many items the section holds; 0 for an unknown section.
    public func numberOfItems(inSection sectionIdentifier: Any) -> Int {
        range(of: sectionIdentifier)?.count ?? 0
    }

    /// The item identifiers of a section.
    ///
    /// - Parameter sectionIdentifier: A section name.
    /// - Returns: The section's object IDs in order; empty for an unknown section.
    public func itemIdentifiersInSection(withIdentifier sectionIdentifier: Any) -> [Any] {
        guard let range = range(of: sectionIdentifier) else { return [] }
        return Array(ids[range.start..<(range.start + range.count)])
    }

    /// The section holding an item.
    ///
    /// - Parameter itemIdentifier: An object ID.
    /// - Returns: The name of the section that holds it, or nil.
    public func sectionIdentifierForSection(containingItemIdentifier itemIdentifier: Any) -> Any? {
        let index = self.index(ofItemIdentifier: itemIdentifier)
        guard index != NSNotFound else { return nil }
        return ranges.first { index >= $0.start && index < $0.start + $0.count }?.name
    }

    /// The position of an item among all items.
    ///
    /// - Parameter itemIdentifier: An object ID.
    /// - Returns: Its position, or `NSNotFound`.
    public func index(ofItemIdentifier itemIdentifier: Any) -> Int {
        guard let id = itemIdentifier as? NSManagedObjectID else { return NSNotFound }
        return ids.firstIndex(of: id) ?? NSNotFound
    }

    /// The position of a section.
    ///
    /// - Parameter sectionIdentifier: A section name.
    /// - Returns: Its position, or `NSNotFound`.
    public func index(ofSectionIdentifier sectionIdentifier: Any) -> Int {
        guard let name = sectionIdentifier as? String else { return NSNotFound }
        return ranges.firstIndex { $0.name == name } ?? NSNotFound
    }

    private func range(of sectionIdentifier: Any) -> (name: String, start: Int, count: Int)? {
        guard let name = sectionIdentifier as? String else { return nil }
        return ranges.first { $0.name == name }
    }
}
