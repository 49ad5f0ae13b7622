import Foundation

/// The results of a fetch request kept up to date with its context, in sections, for a list:
/// Core Data's `NSFetchedResultsController`.
///
/// ```swift
/// let request = Item.fetchRequest()
/// request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
/// let controller = NSFetchedResultsController(
///     fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: nil)
/// controller.delegate = self
/// try controller.performFetch()
/// let first = controller.object(at: IndexPath(item: 0, section: 0))
/// ```
///
/// With a delegate, the controller follows its context's objects-did-change notifications (unsaved
/// edits, inserts and deletes once processed, saves, merges) and tells the delegate what moved. It
/// does not see batch requests until their changes are merged into the context, and after
/// `reset()` it needs `performFetch()` again, as in Core Data.
///
/// `ResultType` is unconstrained (Core Data constrains it to `NSFetchRequestResult`) so that
/// `NSFetchedResultsController<NSFetchRequestResult>`, the type the delegate methods take, compiles:
/// a protocol does not conform to itself off Apple platforms. A controller of another result type
/// hands its delegate a companion `NSFetchedResultsController<NSFetchRequestResult>` that shares its
/// state, since Swift keeps the two generic types apart (docs/compatibility.md).
open class NSFetchedResultsController<ResultType>: NSObject {
    let engine: FetchedResultsEngine
    /// The request, as given: a caller may change its predicate and order between fetches.
    private let request: NSFetchRequest<ResultType>
    /// The controller the delegate is handed, when this one is not of that type itself.
    private var companion: NSFetchedResultsController<NSFetchRequestResult>?

    /// Creates a controller for the results of a request in a context.
    ///
    /// - Parameters:
    ///   - fetchRequest: The request: its first sort descriptor must order the objects by section
    ///     when `sectionNameKeyPath` is given. Do not change it while a cache name is in use.
    ///   - context: The context to fetch in and to follow.
    ///   - sectionNameKeyPath: The key path (through to-one relationships, too) whose value names an
    ///     object's section; nil for one section holding every object.
    ///   - name: The name of the section cache, or nil for none.
    public init(
        fetchRequest: NSFetchRequest<ResultType>, managedObjectContext context: NSManagedObjectContext,
        sectionNameKeyPath: String?, cacheName name: String?
    ) {
        request = fetchRequest
        engine = FetchedResultsEngine(request: fetchRequest, context: context, sectionNameKeyPath: sectionNameKeyPath, cacheName: name)
        super.init()
        if let erased = self as? NSFetchedResultsController<NSFetchRequestResult> {
            engine.erased = erased
        } else {
            let erased = NSFetchedResultsController<NSFetchRequestResult>(sharing: engine, request: fetchRequest)
            companion = erased
            engine.erased = erased
        }
        // Weak: the companion, which a delegate may keep, shares the engine and outlives this one.
        engine.controllerIndexTitle = { [weak self] name in
            self?.sectionIndexTitle(forSectionName: name) ?? name.first.map { String($0).uppercased() }
        }
    }

    /// The companion of a controller of another result type.
    private init(sharing engine: FetchedResultsEngine, request: AnyObject) {
        self.engine = engine
        // The same request object, seen through this type: NSFetchRequest's storage does not
        // depend on its result type, which only types what `fetch` returns.
        let reference = Unmanaged.passUnretained(request).toOpaque()
        self.request = Unmanaged<NSFetchRequest<ResultType>>.fromOpaque(reference).takeUnretainedValue()
        super.init()
    }

    /// The request the controller runs.
    open var fetchRequest: NSFetchRequest<ResultType> { request }
    /// The context the controller fetches in and follows.
    open var managedObjectContext: NSManagedObjectContext { engine.context }
    /// The key path that names sections, or nil.
    open var sectionNameKeyPath: String? { engine.sectionNameKeyPath }
    /// The name of the section cache, or nil.
    open var cacheName: String? { engine.cacheName }

    /// The object told about changes to the results. Held weakly.
    open var delegate: (any NSFetchedResultsControllerDelegate)? {
        get { engine.delegate }
        set { engine.delegate = newValue }
    }

    /// Forgets a section cache, so that its name can be used with another configuration.
    ///
    /// - Parameter name: The cache to delete, or nil for every cache.
    open class func deleteCache(withName name: String?) {
        FetchedResultsCache.delete(name)
    }

    /// Runs the fetch request and lays out the sections; with a delegate, starts following the
    /// context's changes (and hands a snapshot delegate the first results).
    ///
    /// - Throws: An `NSError` in `NSCocoaErrorDomain` with code `NSCoreDataError` (134060) when the
    ///   request has no sort descriptors, its result type is not managed objects, its objects are
    ///   not of `ResultType`, or its cache name holds another configuration; and what the fetch
    ///   throws (unknown entity or key path, store errors).
    open func performFetch() throws {
        try engine.performFetch { objects in
            guard let first = objects.first else { return true }
            if ResultType.self is NSManagedObject.Type { return NSManagedObjectContext.typedObjects(objects) as [ResultType]? != nil }
            return first is ResultType
        }
    }

    /// The results in order, section after section; nil before `performFetch()`.
    open var fetchedObjects: [ResultType]? {
        guard let objects = engine.objects else { return nil }
        return NSManagedObjectContext.typedObjects(objects) ?? objects.compactMap { $0 as? ResultType }
    }

    /// The sections, in order; nil before `performFetch()`. Without a section name key path, one
    /// section holds every object.
    open var sections: [any NSFetchedResultsSectionInfo]? {
        guard engine.objects != nil else { return nil }
        return engine.sections
    }

    /// The object at an index path.
    ///
    /// - Parameter indexPath: A section and an item in it.
    /// - Returns: The object there. The program stops on a path outside the results, as Core Data
    ///   raises.
    open func object(at indexPath: IndexPath) -> ResultType {
        let sections = engine.sections
        precondition(indexPath.count == 2 && engine.objects != nil, "NSFetchedResultsController: no object at index path \(indexPath)")
        let section = indexPath[0]
        let item = indexPath[1]
        precondition(
            section >= 0 && section < sections.count && item >= 0 && item < sections[section].numberOfObjects,
            "NSFetchedResultsController: no object at index \(item) in section at index \(section)")
        return engine.objects![sections[section].start + item] as! ResultType
    }

    /// The index path of an object.
    ///
    /// - Parameter object: An object of the results.
    /// - Returns: Its section and item, or nil if it is not in the results.
    open func indexPath(forObject object: ResultType) -> IndexPath? {
        guard let object = object as? NSManagedObject, let index = engine.index(of: object) else { return nil }
        return FetchedResultsEngine.indexPath(of: index, in: engine.ranges)
    }

    /// The section index title of a section name: its first letter, capitalized. Override it, or
    /// implement the delegate's `controller(_:sectionIndexTitleForSectionName:)`, for others.
    ///
    /// - Parameter sectionName: The name of a section.
    /// - Returns: The title, or nil for an empty name.
    open func sectionIndexTitle(forSectionName sectionName: String) -> String? {
        sectionName.first.map { String($0).uppercased() }
    }

    /// The titles of the section index: each section's title, in section order, each once.
    open var sectionIndexTitles: [String] {
        var titles: [String] = []
        var seen = Set<String>()
        for section in engine.sections {
            guard let title = section.indexTitle, seen.insert(title).inserted else { continue }
            titles.append(title)
        }
        return titles
    }

    /// The section a title of the section index leads to.
    ///
    /// - Parameters:
    ///   - title: A title of `sectionIndexTitles`.
    ///   - sectionIndex: Its position in `sectionIndexTitles`.
    /// - Returns: The index of the first section with that title; the program stops when no section
    ///   has it, as Core Data raises.
    open func section(forSectionIndexTitle title: String, at sectionIndex: Int) -> Int {
        guard let index = engine.sections.firstIndex(where: { $0.indexTitle == title }) else {
            preconditionFailure("NSFetchedResultsController: no section with index title '\(title)' (at \(sectionIndex))")
        }
        return index
    }
}
