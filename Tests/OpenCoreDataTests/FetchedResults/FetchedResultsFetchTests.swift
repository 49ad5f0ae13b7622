import Foundation
import Testing

@testable import OpenCoreData

/// `performFetch()`, the sections and the lookups of `NSFetchedResultsController`.
@Suite struct FetchedResultsFetchTests {
    @Test func resultsAreNilUntilTheFetchAndThenInTheRequestsOrder() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            try Residents.populate(stack.context)
            let controller = Residents.controller(in: stack.context, sections: nil)
            #expect(controller.fetchedObjects == nil && controller.sections == nil)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(Residents.name) == ["Ann", "Bob", "Carl", "Dora", "Eve", "Fay"])
            // Without a section name key path: one section holding everything.
            #expect(controller.sections?.count == 1)
            #expect(controller.sections?[0].numberOfObjects == 6)
            let dora = controller.object(at: IndexPath(item: 3, section: 0))
            #expect(Residents.name(dora) == "Dora")
            #expect(controller.indexPath(forObject: dora) == IndexPath(row: 3, section: 0))
            let stranger = Residents.insert("Zed", city: "Oslo", into: stack.context)
            #expect(controller.indexPath(forObject: stranger) == nil)
        }
    }

    @Test func sectionsAreRunsOfTheKeyPathsValueWithIndexTitles() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            try Residents.populate(stack.context)
            Residents.insert("Gus", city: nil, into: stack.context)
            try stack.context.save()
            let controller = Residents.controller(in: stack.context)
            try controller.performFetch()
            // SQLite sorts NULL first; a nil value names the section "".
            #expect(Residents.layout(controller) == [": Gus", "Lyon: Ann Bob", "Paris: Carl Dora Eve", "Rome: Fay"])
            #expect(controller.sections?.map(\.indexTitle) == [nil, "L", "P", "R"])
            #expect(controller.sectionIndexTitles == ["L", "P", "R"])
            #expect(controller.section(forSectionIndexTitle: "P", at: 1) == 2)
            let eve = controller.object(at: IndexPath(item: 2, section: 2))
            #expect(Residents.name(eve) == "Eve")
            #expect(controller.indexPath(forObject: eve) == IndexPath(item: 2, section: 2))
        }
    }

    @Test func aSubclassOrTheDelegateNamesTheIndexTitles() throws {
        final class Titled: NSFetchedResultsController<NSManagedObject> {
            override func sectionIndexTitle(forSectionName sectionName: String) -> String? { sectionName.lowercased() }
        }
        final class Titles: NSFetchedResultsControllerDelegate {
            func controller(_ controller: NSFetchedResultsController<NSFetchRequestResult>, sectionIndexTitleForSectionName sectionName: String) -> String? {
                "#" + sectionName.prefix(2)
            }
        }
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            try Residents.populate(stack.context)
            let subclassed = Titled(fetchRequest: Residents.request(), managedObjectContext: stack.context, sectionNameKeyPath: "city", cacheName: nil)
            try subclassed.performFetch()
            #expect(subclassed.sectionIndexTitles == ["lyon", "paris", "rome"])
            let delegated = Residents.controller(in: stack.context)
            let titles = Titles()
            delegated.delegate = titles
            try delegated.performFetch()
            #expect(delegated.sectionIndexTitles == ["#Ly", "#Pa", "#Ro"])
        }
    }

    @Test func sectionsThroughAToOneAndOnABoolean() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            for (title, author) in [("Emma", "Austen"), ("Persuasion", "Austen"), ("Dubliners", "Joyce")] {
                let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
                book.setValue(title, forKey: "title")
                let request = NSFetchRequest<NSManagedObject>(entityName: "Author")
                request.predicate = NSPredicate(format: "name == %@", author)
                let existing = try stack.context.fetch(request).first
                let writer = existing ?? NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
                writer.setValue(author, forKey: "name")
                book.setValue(writer, forKey: "author")
                try stack.context.save()
            }
            let request = NSFetchRequest<NSManagedObject>(entityName: "Book")
            request.sortDescriptors = [NSSortDescriptor(key: "author.name", ascending: false), NSSortDescriptor(key: "title", ascending: true)]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "author.name", cacheName: nil)
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["Joyce", "Austen"])
            #expect(controller.sections?.map(\.numberOfObjects) == [1, 2])

            let items = try TestStack(model: TestModels.todo(), directory: directory, name: "Todo.sqlite")
            try items.context.performAndWait {
                for (name, done) in [("a", true), ("b", false), ("c", true)] {
                    let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: items.context)
                    item.setValue(name, forKey: "name")
                    item.setValue(done, forKey: "done")
                }
                try items.context.save()
                let byDone = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                byDone.sortDescriptors = [NSSortDescriptor(key: "done", ascending: true)]
                let flags = NSFetchedResultsController(fetchRequest: byDone, managedObjectContext: items.context, sectionNameKeyPath: "done", cacheName: nil)
                try flags.performFetch()
                // Core Data names sections by the value's description: a Boolean is an NSNumber.
                #expect(flags.sections?.map(\.name) == ["0", "1"])
            }
        }
    }

    @Test func anOrderThatSplitsSectionsIsGroupedBySectionName() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            try Residents.populate(stack.context)
            Residents.insert("Al", city: "Rome", into: stack.context)
            try stack.context.save()
            let request = Residents.request()
            request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let controller = NSFetchedResultsController(
                fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "city", cacheName: nil)
            try controller.performFetch()
            // Fetched Al (Rome) Ann Bob (Lyon) Carl Dora Eve (Paris) Fay (Rome): Rome is split. Core
            // Data logs "out of order section name" and shows the sections by name, each in
            // fetched order.
            #expect(Residents.layout(controller) == ["Lyon: Ann Bob", "Paris: Carl Dora Eve", "Rome: Al Fay"])
        }
    }

    @Test func requestsItCannotServeFailWithCoreDatasError() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            try Residents.populate(stack.context)
            let unsorted = Residents.request()
            unsorted.sortDescriptors = nil
            let controller = NSFetchedResultsController(fetchRequest: unsorted, managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: nil)
            let error = try #require(throws: NSError.self) { try controller.performFetch() }
            #expect(error.domain == NSCocoaErrorDomain && error.code == NSCoreDataError)
            #expect(controller.fetchedObjects == nil)

            let dictionaries = NSFetchRequest<NSDictionary>(entityName: "Resident")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
            let rows = NSFetchedResultsController(fetchRequest: dictionaries, managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: nil)
            #expect(throws: NSError.self) { try rows.performFetch() }

            let unknown = Residents.request(NSPredicate(format: "nickname == 'x'"))
            let failing = NSFetchedResultsController(fetchRequest: unknown, managedObjectContext: stack.context, sectionNameKeyPath: nil, cacheName: nil)
            #expect(throws: NSError.self) { try failing.performFetch() }
        }
    }

    @Test func aCacheNameHoldsOneConfigurationUntilDeleted() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        let cache = "residents-\(UUID().uuidString)"
        try stack.context.performAndWait {
            try Residents.populate(stack.context)
            let request = Residents.request()
            let controller = NSFetchedResultsController(fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: "city", cacheName: cache)
            try controller.performFetch()
            try controller.performFetch()
            #expect(controller.cacheName == cache)
            // Changing the request under a cache is what Core Data calls an illegal mutation.
            request.predicate = NSPredicate(format: "age > 10")
            let error = try #require(throws: NSError.self) { try controller.performFetch() }
            #expect(error.code == NSCoreDataError)
            #expect("\(error)".contains("illegally mutated"))
            NSFetchedResultsController<NSManagedObject>.deleteCache(withName: cache)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.count == 6)
        }
    }
}
