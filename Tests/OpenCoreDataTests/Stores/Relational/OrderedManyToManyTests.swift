import Foundation
import GRDB
import Testing

@testable import OpenCoreData

/// An ordered many-to-many keeps its order in the store, in the join table's `Z_FOK_` column as
/// Core Data's SQLite store keeps it (docs/sqlite-format.md §5.3: Playlist(1).featured ordered ↔
/// Track(2).featuredIn gives `Z_1FEATURED` with `Z_FOK_2FEATURED`), so that another coordinator,
/// or the app after a relaunch, reads the order that was saved.
@Suite struct OrderedManyToManyTests {
    static func model() -> NSManagedObjectModel {
        let playlist = TestModels.entity("Playlist", [TestModels.attribute("name", .stringAttributeType)])
        let track = TestModels.entity("Track", [TestModels.attribute("title", .stringAttributeType)])
        let featured = TestModels.relationship("featured", to: track, toMany: true)
        featured.isOrdered = true
        let featuredIn = TestModels.relationship("featuredIn", to: playlist, toMany: true)
        featured.inverseRelationship = featuredIn
        featuredIn.inverseRelationship = featured
        playlist.properties += [featured]
        track.properties += [featuredIn]
        let model = NSManagedObjectModel()
        model.entities = [playlist, track]
        return model
    }

    private func featuredTitles(_ context: NSManagedObjectContext, prefetching: Bool = false) throws -> [String] {
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Playlist")
            if prefetching { request.relationshipKeyPathsForPrefetching = ["featured"] }
            let playlist = try #require(try context.fetch(request).first)
            let featured = try #require(playlist.value(forKey: "featured") as? NSOrderedSet)
            return featured.array.compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }
        }
    }

    /// Saves a playlist "Mix" with tracks inserted (and so keyed) in the order of `titles`,
    /// featured in the order of `featured` (that of `titles` by default); returns the tracks.
    @discardableResult
    private func saveMix(inserting titles: [String], featuring featured: [String]? = nil, in context: NSManagedObjectContext) throws -> [NSManagedObject] {
        try context.performAndWait {
            let playlist = ConformanceStack.insert("Playlist", ["name": "Mix"], into: context)
            let tracks = titles.map { ConformanceStack.insert("Track", ["title": $0], into: context) }
            let order = (featured ?? titles).compactMap { title in tracks.first { $0.value(forKey: "title") as? String == title } }
            playlist.mutableOrderedSetValue(forKey: "featured").addObjects(from: order)
            try context.save()
            return tracks
        }
    }

    @Test(arguments: ConformanceStore.builtIn)
    func theOrderSavedIsTheOrderReadBack(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(Self.model(), in: directory)
        let context = stack.context()
        // Keys follow insertion (Cello 1, Alto 2, Bass 3), so this first list is in key order;
        // the reordering below (Bass 3 before Cello 1) is what key order would not give.
        let tracks = try saveMix(inserting: ["Cello", "Alto", "Bass"], in: context)
        let saved = try featuredTitles(try stack.readerContext())
        #expect(saved == ["Cello", "Alto", "Bass"], "\(saved)")
        let prefetched = try featuredTitles(try stack.readerContext(), prefetching: true)
        #expect(prefetched == ["Cello", "Alto", "Bass"], "\(prefetched)")

        try context.performAndWait {
            let featured = try #require((tracks[0].value(forKey: "featuredIn") as? Set<NSManagedObject>)?.first)
            let list = featured.mutableOrderedSetValue(forKey: "featured")
            list.remove(tracks[1])
            list.moveObjects(at: IndexSet(integer: 1), to: 0)
            try context.save()
        }
        let reordered = try featuredTitles(try stack.readerContext())
        #expect(reordered == ["Bass", "Cello"], "\(reordered)")
        let reorderedAndPrefetched = try featuredTitles(try stack.readerContext(), prefetching: true)
        #expect(reorderedAndPrefetched == ["Bass", "Cello"], "\(reorderedAndPrefetched)")
    }

    /// The SQLite store's join table is Core Data's: its order column is named and filled as
    /// Apple's store fills it, positions spaced by 1024.
    @Test func theJoinTableHasCoreDatasOrderColumn() throws {
        let directory = TemporaryDirectory()
        let stack = try ConformanceStore.sqlite.stack(Self.model(), in: directory)
        let context = stack.context()
        try saveMix(inserting: ["Cello", "Alto"], in: context)
        let pool = try #require((stack.store as? SQLiteStore)?.pool)
        let (ddl, rows) = try pool.read { db in
            (
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'Z_1FEATURED'"),
                try Row.fetchAll(db, sql: "SELECT Z_2FEATURED, Z_FOK_2FEATURED FROM Z_1FEATURED ORDER BY Z_FOK_2FEATURED").map { [$0[0] as Int64, $0[1] as Int64] }
            )
        }
        #expect(ddl == "CREATE TABLE Z_1FEATURED ( Z_1FEATUREDIN INTEGER, Z_2FEATURED INTEGER, Z_FOK_2FEATURED INTEGER, PRIMARY KEY (Z_1FEATUREDIN, Z_2FEATURED) )")
        #expect(rows == [[1, 1024], [2, 2048]])
    }

    /// A store written before the order was kept has the join table without its order column
    /// (and the same version hashes): opening it adds the column, the pairs read in key order,
    /// and a reordering saved afterwards is kept.
    @Test func aStoreWithoutTheOrderColumnGainsItWhenOpened() throws {
        let directory = TemporaryDirectory()
        do {
            let stack = try ConformanceStore.sqlite.stack(Self.model(), in: directory)
            let context = stack.context()
            try saveMix(inserting: ["Cello", "Alto"], featuring: ["Alto", "Cello"], in: context)
            try #require((stack.store as? SQLiteStore)?.pool).write { db in
                try db.execute(sql: "ALTER TABLE Z_1FEATURED DROP COLUMN Z_FOK_2FEATURED")
            }
            try stack.coordinator.remove(stack.store)
        }
        let stack = try ConformanceStore.sqlite.stack(Self.model(), in: directory)
        let context = stack.context()
        #expect(try featuredTitles(context) == ["Cello", "Alto"])
        try context.performAndWait {
            let playlist = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Playlist"))[0]
            playlist.mutableOrderedSetValue(forKey: "featured").moveObjects(at: IndexSet(integer: 1), to: 0)
            try context.save()
        }
        #expect(try featuredTitles(try stack.readerContext()) == ["Alto", "Cello"])
    }

    /// The membership of a many-to-many edited again after a save, in the same context, is
    /// saved again (the committed snapshot once shared the live set, so the second save saw no
    /// change and wrote nothing).
    @Test(arguments: ConformanceStore.builtIn)
    func aManyToManyEditedAfterASaveIsSavedAgain(_ kind: ConformanceStore) throws {
        let directory = TemporaryDirectory()
        let stack = try kind.stack(TestModels.library(), in: directory)
        let context = stack.context()
        try context.performAndWait {
            let book = ConformanceStack.insert("Book", ["title": "Dune", "pages": 412], into: context)
            let tags = ["sf", "classic", "desert"].map { ConformanceStack.insert("Tag", ["label": $0], into: context) }
            book.mutableSetValue(forKey: "tags").addObjects(from: Array(tags.prefix(2)))
            try context.save()
            book.mutableSetValue(forKey: "tags").remove(tags[0])
            book.mutableSetValue(forKey: "tags").add(tags[2])
            try context.save()
        }
        let reader = try stack.readerContext()
        let labels = try reader.performAndWait {
            let book = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))[0]
            return Set(((book.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "label") as? String })
        }
        #expect(labels == ["classic", "desert"])
    }

    /// Lightweight migration in place (a Track attribute added) keeps the join table and its
    /// positions: the order reads back the same under the new model.
    @Test func lightweightMigrationKeepsTheOrder() throws {
        let directory = TemporaryDirectory()
        do {
            let stack = try ConformanceStore.sqlite.stack(Self.model(), in: directory)
            let context = stack.context()
            try saveMix(inserting: ["Cello", "Alto", "Bass"], in: context)
            try stack.coordinator.remove(stack.store)
        }
        let (previous, next) = (Self.model(), Self.model())
        next.entitiesByName["Track"]!.properties += [TestModels.attribute("duration", .doubleAttributeType)]
        // A stage names both models (they are built in code, not found in a bundle); with no
        // handlers it is a lightweight migration, run in place.
        let stage = NSCustomMigrationStage(
            migratingFrom: NSManagedObjectModelReference(model: previous, versionChecksum: previous.versionChecksum),
            to: NSManagedObjectModelReference(model: next, versionChecksum: next.versionChecksum))
        let stack = try ConformanceStore.sqlite.stack(
            next, in: directory,
            options: [
                NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                NSPersistentStoreStagedMigrationManagerOptionKey: NSStagedMigrationManager([stage]),
            ])
        #expect(try featuredTitles(stack.context()) == ["Cello", "Alto", "Bass"])
    }
}
