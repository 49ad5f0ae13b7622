import Foundation
import Testing

@testable import OpenCoreData

/// Residents of cities, listed by city (the sections) and name: the model of the fetched results
/// controller's tests.
enum Residents {
    static func model() -> NSManagedObjectModel {
        let resident = TestModels.entity("Resident", [
            TestModels.attribute("name", .stringAttributeType),
            TestModels.attribute("city", .stringAttributeType),
            TestModels.attribute("age", .integer64AttributeType, defaultValue: 0),
        ])
        let model = NSManagedObjectModel()
        model.entities = [resident]
        return model
    }

    @discardableResult
    static func insert(_ name: String, city: String?, age: Int = 30, into context: NSManagedObjectContext) -> NSManagedObject {
        let resident = NSEntityDescription.insertNewObject(forEntityName: "Resident", into: context)
        resident.setValue(name, forKey: "name")
        resident.setValue(city, forKey: "city")
        resident.setValue(age, forKey: "age")
        return resident
    }

    /// Lyon: Ann, Bob; Paris: Carl, Dora, Eve; Rome: Fay — saved.
    static func populate(_ context: NSManagedObjectContext) throws {
        for (name, city) in [("Ann", "Lyon"), ("Bob", "Lyon"), ("Carl", "Paris"), ("Dora", "Paris"), ("Eve", "Paris"), ("Fay", "Rome")] {
            insert(name, city: city, into: context)
        }
        try context.save()
    }

    /// Residents by city, then name.
    static func request(_ predicate: NSPredicate? = nil) -> NSFetchRequest<NSManagedObject> {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Resident")
        request.sortDescriptors = [NSSortDescriptor(key: "city", ascending: true), NSSortDescriptor(key: "name", ascending: true)]
        request.predicate = predicate
        return request
    }

    /// An object's name, or "?" for an object without one.
    /// A controller of residents by city and name, in sections by city (or none).
    static func controller(
        in context: NSManagedObjectContext, sections: String? = "city", predicate: NSPredicate? = nil
    ) -> NSFetchedResultsController<NSManagedObject> {
        NSFetchedResultsController(
            fetchRequest: request(predicate), managedObjectContext: context, sectionNameKeyPath: sections, cacheName: nil)
    }

    static func name(_ object: Any) -> String {
        guard let object = object as? NSManagedObject, object.entity.propertiesByName["name"] != nil else { return "?" }
        return object.value(forKey: "name") as? String ?? "?"
    }

    /// The controller's sections as city: names.
    static func layout<T>(_ controller: NSFetchedResultsController<T>) -> [String] {
        (controller.sections ?? []).map { section in
            "\(section.name): " + (section.objects ?? []).map(name).joined(separator: " ")
        }
    }
}

/// A delegate that takes the per-change calls and writes them down.
final class ChangeRecorder: NSFetchedResultsControllerDelegate {
    enum Event: Equatable, CustomStringConvertible {
        case willChange
        case didChange
        case section(String, at: Int, NSFetchedResultsChangeType, objects: Int)
        case object(String, from: IndexPath?, NSFetchedResultsChangeType, to: IndexPath?)

        var description: String {
            switch self {
            case .willChange: "will"
            case .didChange: "did"
            case let .section(name, index, type, count): "section \(name) \(type) at \(index) (\(count))"
            case let .object(name, from, type, to): "\(name) \(type) \(from.map { "\($0)" } ?? "-") → \(to.map { "\($0)" } ?? "-")"
            }
        }
    }

    var events: [Event] = []
    /// The controllers the calls came with.
    var controllers: [NSFetchedResultsController<NSFetchRequestResult>] = []
    /// The objects of the object calls, in order.
    var objects: [NSManagedObject] = []

    func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        controllers.append(controller)
        events.append(.willChange)
    }

    func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
        events.append(.didChange)
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
        atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
    ) {
        events.append(.section(sectionInfo.name, at: sectionIndex, type, objects: sectionInfo.numberOfObjects))
    }

    func controller(
        _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
        for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        objects.append(anObject as! NSManagedObject)
        events.append(.object(Residents.name(anObject), from: indexPath, type, to: newIndexPath))
    }

    func count(_ type: NSFetchedResultsChangeType) -> Int {
        events.filter { if case .object(_, _, type, _) = $0 { true } else { false } }.count
    }

    func sectionCount(_ type: NSFetchedResultsChangeType) -> Int {
        events.filter { if case .section(_, _, type, _) = $0 { true } else { false } }.count
    }

    /// The events since the last call, forgetting them.
    func take() -> [Event] {
        defer { events.removeAll(); objects.removeAll() }
        return events
    }
}

/// The sections of a list, changed by a controller's per-change calls as a table view's batch
/// updates change its rows: deletes (and where moves start) by the old index paths, then section
/// deletes and inserts, then inserts (and where moves end) by the new index paths.
struct ListMirror {
    var sections: [(name: String, items: [NSManagedObject])]

    init<T>(_ controller: NSFetchedResultsController<T>) {
        sections = (controller.sections ?? []).map { ($0.name, ($0.objects ?? []).map { $0 as! NSManagedObject }) }
    }

    mutating func apply(_ events: [ChangeRecorder.Event], objects: [NSManagedObject]) {
        var removals: [IndexPath] = []
        var insertions: [(IndexPath, NSManagedObject)] = []
        var deletedSections: [Int] = []
        var insertedSections: [(Int, String)] = []
        var next = 0
        for event in events {
            switch event {
            case let .section(name, index, .delete, _): deletedSections.append(index); _ = name
            case let .section(name, index, .insert, _): insertedSections.append((index, name))
            case let .object(_, from, type, to):
                let object = objects[next]
                next += 1
                if type == .delete || type == .move { removals.append(from!) }
                if type == .insert || type == .move { insertions.append((to!, object)) }
            default: break
            }
        }
        for path in removals.sorted(by: >) { sections[path.section].items.remove(at: path.item) }
        for index in deletedSections.sorted(by: >) { sections.remove(at: index) }
        for (index, name) in insertedSections.sorted(by: { $0.0 < $1.0 }) { sections.insert((name, []), at: index) }
        for (path, object) in insertions.sorted(by: { $0.0 < $1.0 }) { sections[path.section].items.insert(object, at: path.item) }
    }

    var layout: [String] {
        sections.map { "\($0.name): " + $0.items.map(Residents.name).joined(separator: " ") }
    }
}
