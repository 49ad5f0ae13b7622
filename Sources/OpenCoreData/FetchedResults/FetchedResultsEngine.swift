import Foundation

/// The state of a fetched results controller: its results in order, their sections, and the
/// tracking of its context's changes. Shared by the controller a program holds
/// (`NSFetchedResultsController<Item>`) and the one its delegate is handed
/// (`NSFetchedResultsController<NSFetchRequestResult>`), which Swift's generics keep apart.
///
/// @unchecked Sendable: used on its context's queue only, as the context is; the notification
/// observer that reaches it runs there, since a context posts on its own queue.
final class FetchedResultsEngine: @unchecked Sendable {
    let context: NSManagedObjectContext
    let request: any FetchedResultsRequest
    let sectionNameKeyPath: String?
    let cacheName: String?

    /// Weak, not `unowned(unsafe)` as in Core Data: a delegate that goes away stops the calls
    /// rather than leaving a dangling pointer.
    weak var delegate: (any NSFetchedResultsControllerDelegate)? {
        didSet {
            takesSnapshots = nil
            takesDifferences = nil
            if delegate != nil, objects != nil { startObserving() }
        }
    }

    /// Set by the delegate protocol's default methods: the delegate does not implement the method
    /// just called.
    var defaultImplementationRan = false
    /// Which exclusive way of being told the delegate takes, learnt on the first call of each.
    private var takesSnapshots: Bool?
    private var takesDifferences: Bool?

    /// The controller handed to the delegate. Weak: it (or the typed controller holding it) holds
    /// this engine.
    weak var erased: NSFetchedResultsController<NSFetchRequestResult>?
    /// The controller's `sectionIndexTitle(forSectionName:)`, which a subclass may override.
    var controllerIndexTitle: (String) -> String? = { _ in nil }

    /// The results, in order; nil until the first fetch.
    private(set) var objects: [NSManagedObject]?
    /// The section name of each result, when the controller has sections.
    private var names: [String] = []
    private(set) var sections: [FetchedResultsSection] = []
    private var sectionsByName: [String: FetchedResultsSection] = [:]
    /// The sections the last layout emptied, for the delegate's section deletes.
    private var retiredSections: [String: FetchedResultsSection] = [:]
    /// Whether the fetched order did not keep sections together and the results were grouped by
    /// section name instead (as Core Data shows them).
    private var groupedByName = false
    private var entityNumbers: Set<Int> = []
    private var positions: [ObjectIdentifier: Int]?
    private var observer: (any NSObjectProtocol)?

    init(request: any FetchedResultsRequest, context: NSManagedObjectContext, sectionNameKeyPath: String?, cacheName: String?) {
        self.request = request
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
        self.cacheName = cacheName
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    var isSectioned: Bool { sectionNameKeyPath != nil }

    // MARK: Fetching

    /// Runs the request and lays out the sections.
    ///
    /// - Parameter accepts: Whether the controller's result type holds the fetched objects.
    func performFetch(accepting accepts: ([NSManagedObject]) -> Bool) throws {
        guard request.resultType == .managedObjectResultType else {
            throw CoreDataError.make(
                NSCoreDataError, "NSFetchedResultsController only supports fetch requests whose result type is managedObjectResultType.")
        }
        guard let descriptors = request.sortDescriptors, !descriptors.isEmpty else {
            throw CoreDataError.make(NSCoreDataError, "An instance of NSFetchedResultsController requires a fetch request with sort descriptors.")
        }
        if let cacheName {
            try FetchedResultsCache.check(cacheName, request: request, sectionNameKeyPath: sectionNameKeyPath)
        }
        let (fetched, entity) = try request.fetchManagedObjects(in: context)
        guard accepts(fetched) else {
            throw CoreDataError.make(
                NSCoreDataError, "The fetch request's result type does not match the objects of entity \(entity.name ?? "?").")
        }
        var results = fetched
        var names = isSectioned ? fetched.map(sectionName) : []
        groupedByName = false
        if let outOfOrder = Self.firstOutOfOrderName(names) {
            context.persistentStoreCoordinator?.logger.error(
                "CoreData: error: (NSFetchedResultsController) The fetched object at index \(outOfOrder) has an out of order section name '\(names[outOfOrder])'. Objects must be sorted by section name")
            // Sections in name order, each in the fetched order: what Core Data shows then.
            let order = names.indices.sorted { names[$0] != names[$1] ? names[$0] < names[$1] : $0 < $1 }
            results = order.map { fetched[$0] }
            names = order.map { names[$0] }
            groupedByName = true
        }
        entityNumbers = Set(request.includesSubentities ? entity.layout!.hierarchyNumbers : [entity.layout!.entityNumber])
        objects = results
        self.names = names
        positions = nil
        layOutSections()
        if delegate != nil {
            startObserving()
            tellSnapshot(reloaded: [])
        }
    }

    /// The index of the first name that reappears after another, or nil if equal names are together.
    private static func firstOutOfOrderName(_ names: [String]) -> Int? {
        guard names.count > 1 else { return nil }
        var seen = Set<String>()
        for index in names.indices where index == 0 || names[index] != names[index - 1] {
            if !seen.insert(names[index]).inserted { return index }
        }
        return nil
    }

    /// The section name of an object: its value at the section name key path, as a string; an
    /// empty string for nil.
    func sectionName(_ object: NSManagedObject) -> String {
        guard let keyPath = sectionNameKeyPath else { return "" }
        switch KeyValueReader.value(atKeyPath: keyPath, of: object) {
        case nil, is NSNull: return ""
        case let string as String: return string
        // Core Data's names are the values' descriptions: a Boolean is an NSNumber, "0" or "1".
        case let flag as Bool: return flag ? "1" : "0"
        case let value?: return "\(value)"
        }
    }

    /// Groups the results into sections: runs of equal names, or one section without a key path.
    /// A name keeps its section object while the section exists; one that disappears is emptied.
    private func layOutSections() {
        let count = objects?.count ?? 0
        var runs: [(name: String, start: Int, count: Int)] = []
        if !isSectioned {
            runs = [("", 0, count)]
        } else {
            var start = 0
            while start < count {
                var end = start + 1
                while end < count, names[end] == names[start] { end += 1 }
                runs.append((names[start], start, end - start))
                start = end
            }
        }
        var laidOut: [FetchedResultsSection] = []
        var byName: [String: FetchedResultsSection] = [:]
        for run in runs {
            let section: FetchedResultsSection
            if let existing = sectionsByName.removeValue(forKey: run.name) {
                section = existing
                section.start = run.start
                section.numberOfObjects = run.count
            } else {
                section = FetchedResultsSection(
                    name: run.name, indexTitle: indexTitle(forSectionName: run.name), start: run.start, count: run.count, results: self)
            }
            laidOut.append(section)
            byName[run.name] = section
        }
        for gone in sectionsByName.values { gone.numberOfObjects = 0 }
        retiredSections = sectionsByName
        sections = laidOut
        sectionsByName = byName
    }

    /// The delegate's title for a section name when it gives one, else the controller's.
    func indexTitle(forSectionName name: String) -> String? {
        if let delegate, let controller = erased {
            defaultImplementationRan = false
            let title = delegate.controller(controller, sectionIndexTitleForSectionName: name)
            if !defaultImplementationRan { return title }
        }
        return controllerIndexTitle(name)
    }

    // MARK: Positions

    /// The position of an object in the results, or nil.
    func index(of object: NSManagedObject) -> Int? {
        guard let objects else { return nil }
        if positions == nil {
            var map: [ObjectIdentifier: Int] = [:]
            map.reserveCapacity(objects.count)
            for (index, object) in objects.enumerated() { map[ObjectIdentifier(object)] = index }
            positions = map
        }
        return positions![ObjectIdentifier(object)]
    }

    /// The index path of a position in the results, by the given sections.
    static func indexPath(of index: Int, in ranges: [(name: String, start: Int, count: Int)]) -> IndexPath {
        var low = 0
        var high = ranges.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if ranges[middle].start <= index { low = middle } else { high = middle - 1 }
        }
        return IndexPath(indexes: [low, index - ranges[low].start])
    }

    var ranges: [(name: String, start: Int, count: Int)] {
        sections.map { ($0.name, $0.start, $0.numberOfObjects) }
    }

    // MARK: Tracking

    private func startObserving() {
        guard observer == nil else { return }
        observer = NotificationCenter.default.addObserver(
            forName: NSManagedObjectContext.didChangeObjectsNotification, object: context, queue: nil
        ) { [weak self] notification in
            self?.contextObjectsDidChange(notification.userInfo ?? [:])
        }
    }

    /// Updates the results from one objects-did-change notification and tells the delegate.
    private func contextObjectsDidChange(_ info: [AnyHashable: Any]) {
        guard delegate != nil, objects != nil else { return }
        var changes = FetchedResultsChanges.Input()
        for (key, changedInPlace) in [
            (NSDeletedObjectsKey, false), (NSInvalidatedObjectsKey, false), (NSInsertedObjectsKey, false),
            (NSUpdatedObjectsKey, true), (NSRefreshedObjectsKey, true),
        ] {
            guard let set = info[key] as? Set<NSManagedObject> else { continue }
            let leaving = key == NSDeletedObjectsKey || key == NSInvalidatedObjectsKey
            for object in set where belongs(object) {
                changes.note(object, leaving: leaving, changedInPlace: changedInPlace)
            }
        }
        guard !changes.candidates.isEmpty else { return }
        apply(changes)
    }

    /// Whether an object is of the fetched entity (or a subentity, when the request includes
    /// them) and of the request's stores.
    private func belongs(_ object: NSManagedObject) -> Bool {
        guard let layout = object.entity.layout, entityNumbers.contains(layout.entityNumber) else { return false }
        guard let stores = request.affectedStores, let store = object.store else { return true }
        return stores.contains { $0 === store }
    }

    /// Whether an object is in the results by its current state.
    private func matches(_ object: NSManagedObject) -> Bool {
        context.owns(object) && !object.isDeleted && (request.predicate?.evaluate(with: object) ?? true)
    }

    private func apply(_ input: FetchedResultsChanges.Input) {
        var objects = self.objects!
        self.objects = nil  // the array is changed in place, without a copy
        let oldRanges = ranges
        let oldNames = names
        var change = FetchedResultsChanges(input: input, objects: objects)
        let incoming = input.candidates.filter { !input.leaving.contains(ObjectIdentifier($0)) && matches($0) }
        guard !change.oldIndex.isEmpty || !incoming.isEmpty else {
            self.objects = objects
            return
        }
        change.place(
            incoming, in: &objects, names: &names, sectioned: isSectioned, sectionName: sectionName,
            before: { [descriptors = request.sortDescriptors ?? [], groupedByName] a, nameA, b, nameB in
                if groupedByName, nameA != nameB { return nameA < nameB }
                let order = descriptors.compare(a, b)
                if order != .orderedSame { return order == .orderedAscending }
                // Ties as the store returns them: by primary key, unsaved objects after saved ones.
                return (a.hasTemporaryID ? 1 : 0, a.primaryKey) < (b.hasTemporaryID ? 1 : 0, b.primaryKey)
            })
        self.objects = objects
        positions = nil
        layOutSections()
        let report = change.report(oldNames: oldNames, newNames: names, sectioned: isSectioned)
        tell(report, oldRanges: oldRanges)
    }

    // MARK: Telling the delegate

    private func tellSnapshot(reloaded: [NSManagedObject]) {
        guard takesSnapshots != false, let delegate, let controller = erased else { return }
        defaultImplementationRan = false
        let snapshot = NSDiffableDataSourceSnapshotReference(objects: objects ?? [], ranges: ranges, reloaded: reloaded)
        delegate.controller(controller, didChangeContentWith: snapshot)
        takesSnapshots = !defaultImplementationRan
    }

    private func tell(_ report: FetchedResultsChanges.Report, oldRanges: [(name: String, start: Int, count: Int)]) {
        guard let delegate, let controller = erased, !report.isEmpty else { return }
        if takesSnapshots != false {
            tellSnapshot(reloaded: report.updated.map(\.object) + report.moved.filter(\.changedInPlace).map(\.object))
        }
        if takesSnapshots == true { return }
        if !isSectioned, takesDifferences != false, let difference = report.difference {
            defaultImplementationRan = false
            delegate.controller(controller, didChangeContentWith: difference)
            takesDifferences = !defaultImplementationRan
            if takesDifferences == true { return }
        }
        let newRanges = ranges
        func old(_ index: Int) -> IndexPath { Self.indexPath(of: index, in: oldRanges) }
        func new(_ index: Int) -> IndexPath { Self.indexPath(of: index, in: newRanges) }
        delegate.controllerWillChangeContent(controller)
        // Sections only come and go (Core Data reports no section moves); a deleted one is empty.
        let newNames = Set(newRanges.map(\.name))
        let oldNames = Set(oldRanges.map(\.name))
        for (index, range) in oldRanges.enumerated() where !newNames.contains(range.name) {
            let section = retiredSections[range.name] ?? FetchedResultsSection(name: range.name, indexTitle: nil, start: 0, count: 0, results: self)
            delegate.controller(controller, didChange: section, atSectionIndex: index, for: .delete)
        }
        for (index, range) in newRanges.enumerated() where !oldNames.contains(range.name) {
            delegate.controller(controller, didChange: sections[index], atSectionIndex: index, for: .insert)
        }
        for entry in report.deleted {
            delegate.controller(controller, didChange: entry.object, at: old(entry.from), for: .delete, newIndexPath: nil)
        }
        for entry in report.inserted {
            delegate.controller(controller, didChange: entry.object, at: nil, for: .insert, newIndexPath: new(entry.to))
        }
        for entry in report.moved {
            delegate.controller(controller, didChange: entry.object, at: old(entry.from), for: .move, newIndexPath: new(entry.to))
        }
        for entry in report.updated {
            delegate.controller(controller, didChange: entry.object, at: old(entry.from), for: .update, newIndexPath: nil)
        }
        delegate.controllerDidChangeContent(controller)
    }
}
