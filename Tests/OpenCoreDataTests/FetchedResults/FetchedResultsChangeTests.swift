import Foundation
import FuzzSupport
import Testing

@testable import OpenCoreData

/// What a fetched results controller tells its delegate when its context's objects change: the
/// cases of CoreDataPlus's tests against Apple's controller (no change, refresh, objects,
/// sections, predicate), with exact index paths.
@Suite struct FetchedResultsChangeTests {
    /// A saved population, a controller by city with a recording delegate, fetched.
    private func watched(
        _ stack: TestStack, predicate: NSPredicate? = nil, sections: Bool = true
    ) throws -> (NSFetchedResultsController<NSManagedObject>, ChangeRecorder) {
        try Residents.populate(stack.context)
        let controller = Residents.controller(in: stack.context, sections: sections ? "city" : nil, predicate: predicate)
        let recorder = ChangeRecorder()
        controller.delegate = recorder
        try controller.performFetch()
        return (controller, recorder)
    }

    private func resident(_ name: String, of controller: NSFetchedResultsController<NSManagedObject>) -> NSManagedObject {
        controller.fetchedObjects!.first { Residents.name($0) == name }!
    }

    @Test func noChangeNoCall() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            let (_, recorder) = try watched(stack, predicate: NSPredicate(format: "age < 50"))
            stack.context.processPendingChanges()
            try stack.context.save()
            // An object the predicate leaves out, changed so that it still does not match.
            let old = Residents.insert("Old", city: "Lyon", age: 80, into: stack.context)
            stack.context.processPendingChanges()
            old.setValue(90, forKey: "age")
            stack.context.processPendingChanges()
            #expect(recorder.events.isEmpty)
        }
    }

    @Test func refreshingEveryObjectNeverInsertsOrDeletes() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            let (controller, recorder) = try watched(stack)
            stack.context.refreshAllObjects()
            stack.context.processPendingChanges()
            #expect(recorder.count(.insert) == 0 && recorder.count(.delete) == 0 && recorder.count(.move) == 0)
            #expect(recorder.count(.update) == 6)
            #expect(Residents.layout(controller) == ["Lyon: Ann Bob", "Paris: Carl Dora Eve", "Rome: Fay"])
        }
    }

    @Test func unsavedInsertsDeletesEditsAndMoves() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            let (controller, recorder) = try watched(stack)
            var mirror = ListMirror(controller)
            stack.context.delete(resident("Carl", of: controller))
            resident("Ann", of: controller).setValue("Zoe", forKey: "name")  // moves to the end of Lyon
            resident("Dora", of: controller).setValue(41, forKey: "age")
            resident("Fay", of: controller).setValue(42, forKey: "age")
            Residents.insert("Abe", city: "Paris", into: stack.context)
            Residents.insert("Gil", city: "Rome", into: stack.context)
            stack.context.processPendingChanges()
            #expect(recorder.count(.insert) == 2)
            #expect(recorder.count(.delete) == 1)
            #expect(recorder.count(.move) == 1)
            #expect(recorder.count(.update) == 2)
            let events = recorder.events
            #expect(events.first == .willChange && events.last == .didChange)
            #expect(events.contains(.object("Carl", from: IndexPath(item: 0, section: 1), .delete, to: nil)))
            #expect(events.contains(.object("Zoe", from: IndexPath(item: 0, section: 0), .move, to: IndexPath(item: 1, section: 0))))
            #expect(events.contains(.object("Dora", from: IndexPath(item: 1, section: 1), .update, to: nil)))
            #expect(events.contains(.object("Fay", from: IndexPath(item: 0, section: 2), .update, to: nil)))
            #expect(events.contains(.object("Abe", from: nil, .insert, to: IndexPath(item: 0, section: 1))))
            #expect(events.contains(.object("Gil", from: nil, .insert, to: IndexPath(item: 1, section: 2))))
            #expect(Residents.layout(controller) == ["Lyon: Bob Zoe", "Paris: Abe Dora Eve", "Rome: Fay Gil"])
            mirror.apply(recorder.events, objects: recorder.objects)
            #expect(mirror.layout == Residents.layout(controller))
            // Saving what was already told tells nothing more.
            _ = recorder.take()
            try stack.context.save()
            #expect(recorder.events.isEmpty)
        }
    }

    @Test func sectionsComeAndGoBeforeTheirObjects() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            let (controller, recorder) = try watched(stack)
            var mirror = ListMirror(controller)
            for object in controller.fetchedObjects! where ["Lyon", "Paris"].contains(object.value(forKey: "city") as? String) {
                object.setValue("Zurich", forKey: "city")
            }
            stack.context.processPendingChanges()
            #expect(recorder.sectionCount(.delete) == 2 && recorder.sectionCount(.insert) == 1)
            let events = recorder.events
            // Deleted sections are empty by then; the inserted one already holds its objects.
            #expect(events[1] == .section("Lyon", at: 0, .delete, objects: 0))
            #expect(events[2] == .section("Paris", at: 1, .delete, objects: 0))
            #expect(events[3] == .section("Zurich", at: 1, .insert, objects: 5))
            #expect(recorder.count(.move) == 5)
            #expect(Residents.layout(controller) == ["Rome: Fay", "Zurich: Ann Bob Carl Dora Eve"])
            mirror.apply(recorder.events, objects: recorder.objects)
            #expect(mirror.layout == Residents.layout(controller))
        }
    }

    @Test func leavingThePredicateIsADelete() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            let (controller, recorder) = try watched(stack, predicate: NSPredicate(format: "age < 50"))
            resident("Eve", of: controller).setValue(60, forKey: "age")
            stack.context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("Eve", from: IndexPath(item: 2, section: 1), .delete, to: nil), .didChange])
            // And coming back into it an insert.
            let eve = try stack.context.fetch(Residents.request(NSPredicate(format: "name == 'Eve'")))[0]
            eve.setValue(20, forKey: "age")
            stack.context.processPendingChanges()
            #expect(recorder.take() == [.willChange, .object("Eve", from: nil, .insert, to: IndexPath(item: 2, section: 1)), .didChange])
        }
    }

    @Test func objectsThatSwapPlacesAreMoves() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        try stack.context.performAndWait {
            let (controller, recorder) = try watched(stack, sections: false)
            var mirror = ListMirror(controller)
            // Carl and Dora trade names: both stay between Bob and Eve, but their order flips.
            resident("Carl", of: controller).setValue("Dory", forKey: "name")
            resident("Dora", of: controller).setValue("Carla", forKey: "name")
            stack.context.processPendingChanges()
            #expect(recorder.count(.move) + recorder.count(.update) == 2)
            #expect(recorder.count(.move) >= 1)
            mirror.apply(recorder.events, objects: recorder.objects)
            #expect(mirror.layout == Residents.layout(controller))
            #expect(Residents.layout(controller) == [": Ann Bob Carla Dory Eve Fay"])
        }
    }

    @Test func randomChangesKeepAListInStep() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: Residents.model(), directory: directory)
        var generator = SplitMix64(seed: 2026)
        try stack.context.performAndWait {
            let (controller, recorder) = try watched(stack, predicate: NSPredicate(format: "age < 70"))
            var mirror = ListMirror(controller)
            let cities = ["Lyon", "Oslo", "Paris", "Rome", "Turin"]
            var everyone = try stack.context.fetch(Residents.request())
            // Names are unique, so that the order is the sort descriptors' alone.
            var serial = 0
            func newName() -> String {
                serial += 1
                return "P\(Int.random(in: 0..<100, using: &generator))-\(serial)"
            }
            for round in 0..<60 {
                for _ in 0..<Int.random(in: 1...(round.isMultiple(of: 10) ? 30 : 4), using: &generator) {
                    switch Int.random(in: 0..<6, using: &generator) {
                    case 0:
                        everyone.append(Residents.insert(
                            newName(), city: cities.randomElement(using: &generator)!,
                            age: Int.random(in: 0..<90, using: &generator), into: stack.context))
                    case 1 where !everyone.isEmpty:
                        stack.context.delete(everyone.remove(at: Int.random(in: 0..<everyone.count, using: &generator)))
                    case 2 where !everyone.isEmpty:
                        everyone.randomElement(using: &generator)!.setValue(cities.randomElement(using: &generator)!, forKey: "city")
                    case 3 where !everyone.isEmpty:
                        everyone.randomElement(using: &generator)!.setValue(Int.random(in: 0..<90, using: &generator), forKey: "age")
                    default:
                        if !everyone.isEmpty {
                            everyone.randomElement(using: &generator)!.setValue(newName(), forKey: "name")
                        }
                    }
                }
                if round.isMultiple(of: 7) { try stack.context.save() } else { stack.context.processPendingChanges() }
                let objects = recorder.objects
                mirror.apply(recorder.take(), objects: objects)
                #expect(mirror.layout == Residents.layout(controller), "round \(round)")
                let fresh = try stack.context.fetch(Residents.request(NSPredicate(format: "age < 70")))
                #expect(controller.fetchedObjects!.map(ObjectIdentifier.init) == fresh.map(ObjectIdentifier.init), "round \(round)")
            }
        }
    }
}
