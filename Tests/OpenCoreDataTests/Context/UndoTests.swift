import Testing
@testable import OpenCoreData

@Suite struct UndoTests {
    /// What a user sees of the little graph: the live objects and their values.
    struct State: Equatable, CustomStringConvertible {
        var authors: [String]
        var books: [String]

        var description: String { "authors \(authors), books \(books)" }
    }

    private func state(_ context: NSManagedObjectContext) -> State {
        let live = context.registeredObjects.filter { !$0.isDeleted && ($0.isInserted || $0.objectID.isTemporaryID == false) }
        let authors = live.filter { $0.entity.name == "Author" }.map { author in
            let titles = (author.value(forKey: "books") as! Set<NSManagedObject>).compactMap { $0.value(forKey: "title") as? String }.sorted()
            return "\(author.value(forKey: "name") as? String ?? "-") \(titles)"
        }.sorted()
        let books = live.filter { $0.entity.name == "Book" }.map { book in
            "\(book.value(forKey: "title") as? String ?? "-") by \((book.value(forKey: "author") as? NSManagedObject)?.value(forKey: "name") as? String ?? "nobody")"
        }.sorted()
        return State(authors: authors, books: books)
    }

    @Test func undoAndRedoRestoreEachEarlierState() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let context = stack.context
        try context.performAndWait {
            let undo = UndoManager()
            context.undoManager = undo
            var states = [state(context)]

            let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            ann.setValue("Ann", forKey: "name")
            context.processPendingChanges()
            states.append(state(context))

            ann.setValue("Anna", forKey: "name")
            context.processPendingChanges()
            states.append(state(context))

            let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
            book.setValue("Tales", forKey: "title")
            book.setValue(ann, forKey: "author")
            undo.setActionName("Add Book")
            context.processPendingChanges()
            states.append(state(context))
            #expect(undo.undoMenuItemTitle == "Undo Add Book")

            let bob = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            bob.setValue("Bob", forKey: "name")
            bob.mutableSetValue(forKey: "books").add(book)
            context.processPendingChanges()
            states.append(state(context))

            context.delete(book)
            context.processPendingChanges()
            states.append(state(context))
            #expect(states.last == State(authors: ["Anna []", "Bob []"], books: []))

            for expected in states.dropLast().reversed() {
                #expect(undo.canUndo)
                context.undo()
                #expect(state(context) == expected)
            }
            #expect(!undo.canUndo)
            #expect(context.insertedObjects.isEmpty)
            for expected in states.dropFirst() {
                #expect(undo.canRedo)
                context.redo()
                #expect(state(context) == expected)
            }
            try context.save()
            let stored = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Author")).count
            #expect(stored == 2)
        }
    }

    /// Objects registered before the context had an undo manager record their edits once it has
    /// one, and stop when it is taken away.
    @Test func anUndoManagerSetLaterCoversObjectsAlreadyRegistered() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        let context = stack.context
        context.performAndWait {
            let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
            ann.setValue("Ann", forKey: "name")
            context.processPendingChanges()

            let undo = UndoManager()
            context.undoManager = undo
            ann.setValue("Anna", forKey: "name")
            context.processPendingChanges()
            #expect(undo.canUndo)
            undo.undo()
            #expect(ann.value(forKey: "name") as? String == "Ann")

            context.undoManager = nil
            ann.setValue("Annie", forKey: "name")
            context.processPendingChanges()
            #expect(!undo.canUndo)
            #expect(ann.value(forKey: "name") as? String == "Annie")
        }
    }

    @Test func groupsAndLevelsFollowFoundation() {
        let undo = UndoManager()
        final class Box { var value = 0 }
        let box = Box()
        func set(_ value: Int) {
            let old = box.value
            undo.registerUndo(withTarget: box) { _ in set(old) }
            box.value = value
        }
        undo.groupsByEvent = false
        undo.beginUndoGrouping()
        set(1)
        set(2)
        undo.endUndoGrouping()
        undo.beginUndoGrouping()
        set(3)
        undo.endUndoGrouping()
        undo.undo()
        #expect(box.value == 2)
        undo.undo()
        #expect(box.value == 0)
        undo.redo()
        #expect(box.value == 2)
        undo.levelsOfUndo = 1
        undo.beginUndoGrouping(); set(4); undo.endUndoGrouping()
        undo.beginUndoGrouping(); set(5); undo.endUndoGrouping()
        undo.undo()
        #expect(box.value == 4)
        #expect(!undo.canUndo)
        undo.removeAllActions()
        #expect(!undo.canRedo)
    }
}
