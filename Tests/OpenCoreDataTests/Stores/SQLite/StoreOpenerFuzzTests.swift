import Foundation
import FuzzSupport
import Logging
import Testing

@testable import OpenCoreData

/// Mutation fuzzing of opening a store file and reading what it holds: mutants of Apple-written
/// stores and of a store this library wrote (bits flipped, bytes set to limits, pages zeroed,
/// files cut short), each opened with its model, every object fetched with all its properties and
/// relationships read, counted, and one object inserted and saved. Each step may fail with an
/// error; a crash fails the run by itself, and it asserts that no input takes longer than
/// `OPENCOREDATA_FUZZ_HANG_SECONDS` (10 by default).
///
/// CI runs a bounded number of inputs; more by hand:
/// `OPENCOREDATA_STORE_FUZZ_ITERATIONS=20000 OPENCOREDATA_FUZZ_SEED=7 swift test --filter StoreOpenerFuzzTests`.
/// The store being tried is copied to `$TMPDIR/opencoredata-store-fuzz-last.sqlite` first.
@Suite struct StoreOpenerFuzzTests {
    static let iterations = FuzzSettings.iterations("OPENCOREDATA_STORE_FUZZ_ITERATIONS", default: 500)
    static let seed = FuzzSettings.seed
    static let hangSeconds = FuzzSettings.hangSeconds

    struct Seed {
        let bytes: [UInt8]
        let model: NSManagedObjectModel
    }

    /// Apple's stores with their models, and a store written here with the seed model that has
    /// every kind of relationship.
    static func seeds(in folder: TemporaryDirectory) throws -> [Seed] {
        var seeds: [Seed] = []
        for (store, version) in [
            ("SampleModel/Fixtures/SampleModel_V1.sqlite", FixtureModelVersion.sampleModel("SampleModel")),
            ("SampleModel/Fixtures/SampleModel_V2.sqlite", FixtureModelVersion.sampleModel("SampleModel2")),
            ("SampleModel3/Fixtures/SampleModel3_V1.sqlite", FixtureModelVersion.sampleModel3("SampleModel3")),
        ] {
            seeds.append(Seed(bytes: Array(try Data(contentsOf: Fixtures.url(store))), model: try version.load()))
        }
        let library = try NSManagedObjectModel(
            validatingContentsOf: Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/ModelSeeds/Library.contents"))
        let url = folder.file("Library.sqlite")
        try writeLibrary(at: url, model: library)
        seeds.append(Seed(bytes: Array(try Data(contentsOf: url)), model: library))
        return seeds
    }

    /// A few books, magazines, authors and shelves, linked every way the model allows.
    static func writeLibrary(at url: URL, model: NSManagedObjectModel) throws {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
            var works: [NSManagedObject] = []
            for i in 0..<12 {
                let work = NSEntityDescription.insertNewObject(forEntityName: i % 3 == 0 ? "Magazine" : "Book", into: context)
                work.setValue("Work \(i)", forKey: "title")
                work.setValue("isbn-\(i)", forKey: "isbn")
                work.setValue(i * 100, forKey: "pages")
                work.setValue(shelf, forKey: "shelf")
                // A keyed archive (the model's secure unarchiver) for mutations to damage.
                work.setValue(NSDictionary(dictionary: ["colors": NSArray(array: [NSString(string: "red")]), "size": NSNumber(value: i)]), forKey: "cover")
                if let previous = works.last { work.mutableSetValue(forKey: "related").add(previous) }
                works.append(work)
            }
            for i in 0..<4 {
                let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
                author.setValue("Author \(i)", forKey: "name")
                author.mutableSetValue(forKey: "works").addObjects(from: Array(works[(i * 3)..<(i * 3 + 3)]))
            }
            try context.save()
        }
        try coordinator.remove(store)
    }

    @Test func mutantsNeitherCrashNorHang() throws {
        let folder = TemporaryDirectory()
        let seeds = try Self.seeds(in: folder)
        var random = SplitMix64(seed: Self.seed)
        let lastInput = FileManager.default.temporaryDirectory.appendingPathComponent("opencoredata-store-fuzz-last.sqlite")
        var opened = 0
        var read = 0
        var slowest: Double = 0
        for iteration in 0..<Self.iterations {
            let seed = seeds[Int(random.next() % UInt64(seeds.count))]
            let bytes = StoreFileMutation.mutant(of: seed.bytes, &random)
            try Data(bytes).write(to: lastInput)
            // A new name each time: a mutant may leave -wal and -shm files behind.
            let url = folder.file("Mutant\(iteration).sqlite")
            try Data(bytes).write(to: url)
            let start = DispatchTime.now().uptimeNanoseconds
            let result = open(url, model: seed.model)
            let seconds = FuzzSettings.seconds(since: start)
            slowest = max(slowest, seconds)
            if result.opened { opened += 1 }
            if result.readAll { read += 1 }
            #expect(seconds < Self.hangSeconds, "input \(iteration) took \(seconds) s")
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        print(
            "store fuzzing: \(Self.iterations) inputs from seed \(Self.seed), \(opened) opened, \(read) read whole; slowest \(String(format: "%.3f", slowest)) s"
        )
        #expect(opened > Self.iterations / 10)
    }

    /// Opens the store, reads every object and every property of it, counts, inserts and saves.
    private func open(_ url: URL, model: NSManagedObjectModel) -> (opened: Bool, readAll: Bool) {
        _ = try? NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        // Unreadable rows and relationships are logged as errors; thousands of them here.
        coordinator.logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
        guard (try? coordinator.addPersistentStore(type: .sqlite, at: url)) != nil else { return (false, false) }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let readAll = context.performAndWait {
            var readAll = true
            for entity in model.entities {
                let request = NSFetchRequest<NSManagedObject>(entityName: entity.name!)
                request.returnsObjectsAsFaults = false
                guard let objects = try? context.fetch(request) else {
                    readAll = false
                    continue
                }
                for object in objects { touch(object) }
                _ = try? context.count(for: request)
            }
            if let entity = model.entities.first(where: { !$0.isAbstract }) {
                _ = NSManagedObject(entity: entity, insertInto: context)
                _ = try? context.save()
            }
            return readAll
        }
        return (true, readAll)
    }

    /// Reads every property, following relationships one step and reading the objects there.
    private func touch(_ object: NSManagedObject) {
        for (name, property) in object.entity.propertiesByName {
            let value = object.value(forKey: name)
            guard property is NSRelationshipDescription else { continue }
            if let related = value as? NSManagedObject {
                _ = related.entity.attributesByName.keys.map { related.value(forKey: $0) }
            } else if let set = value as? Set<NSManagedObject> {
                for related in set { _ = related.entity.attributesByName.keys.map { related.value(forKey: $0) } }
            } else if let ordered = value as? NSOrderedSet {
                for case let related as NSManagedObject in ordered {
                    _ = related.entity.attributesByName.keys.map { related.value(forKey: $0) }
                }
            }
        }
    }
}
