import Testing
@testable import OpenCoreData

@Suite struct OrderedRelationshipTests {
    private func model() -> NSManagedObjectModel {
        let playlist = TestModels.entity("Playlist")
        let track = TestModels.entity("Track")
        let tracks = TestModels.relationship("tracks", to: track, toMany: true)
        tracks.isOrdered = true
        let owner = TestModels.relationship("playlist", to: playlist, toMany: false)
        tracks.inverseRelationship = owner
        owner.inverseRelationship = tracks
        playlist.properties = [TestModels.attribute("name", .stringAttributeType), tracks]
        track.properties = [TestModels.attribute("title", .stringAttributeType), owner]
        let model = NSManagedObjectModel()
        model.entities = [playlist, track]
        return model
    }

    @Test(arguments: [NSPersistentStore.StoreType.sqlite, .inMemory])
    func orderSurvivesSaveAndReordering(type: NSPersistentStore.StoreType) throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model(), directory: directory, type: type)
        try stack.context.performAndWait {
            let list = NSEntityDescription.insertNewObject(forEntityName: "Playlist", into: stack.context)
            let ordered = list.mutableOrderedSetValue(forKey: "tracks")
            for title in ["c", "a", "b"] {
                let track = NSEntityDescription.insertNewObject(forEntityName: "Track", into: stack.context)
                track.setValue(title, forKey: "title")
                ordered.add(track)
            }
            #expect((list.value(forKey: "tracks") as! NSOrderedSet).array.compactMap { ($0 as! NSManagedObject).value(forKey: "title") as? String } == ["c", "a", "b"])
            try stack.context.save()
            stack.context.refresh(list, mergeChanges: false)
            #expect(list.isFault)
            #expect(titles(list) == ["c", "a", "b"])

            let moved = list.mutableOrderedSetValue(forKey: "tracks")
            let last = moved.object(at: 2)
            moved.removeObject(at: 2)
            moved.insert(last, at: 0)
            #expect(titles(list) == ["b", "c", "a"])
            try stack.context.save()
            stack.context.reset()
            let fetched = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Playlist"))[0]
            #expect(titles(fetched) == ["b", "c", "a"])
        }
    }

    /// The live proxies answer Foundation's bulk and reading methods through the relationship:
    /// Foundation on Linux implements them on a collection's own storage, which a proxy leaves
    /// empty, so each one the proxy did not override read nothing or changed nothing.
    @Test func theLiveProxiesAnswerFoundationsMethods() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model(), directory: directory, type: .inMemory)
        try stack.context.performAndWait {
            let list = NSEntityDescription.insertNewObject(forEntityName: "Playlist", into: stack.context)
            let tracks = ["c", "a", "b", "d"].map { title in
                let track = NSEntityDescription.insertNewObject(forEntityName: "Track", into: stack.context)
                track.setValue(title, forKey: "title")
                return track
            }
            let ordered = list.mutableOrderedSetValue(forKey: "tracks")
            ordered.addObjects(from: Array(tracks.prefix(3)))
            #expect(titles(list) == ["c", "a", "b"])
            #expect((ordered.object(at: 0) as? NSManagedObject) === tracks[0])
            #expect(ordered.contains(tracks[1]) && !ordered.contains(tracks[3]))
            ordered.moveObjects(at: IndexSet(integer: 2), to: 0)
            #expect(titles(list) == ["b", "c", "a"])
            ordered.exchangeObject(at: 0, withObjectAt: 2)
            #expect(titles(list) == ["a", "c", "b"])
            ordered.insert([tracks[3]], at: IndexSet(integer: 1))
            #expect(titles(list) == ["a", "d", "c", "b"])
            ordered.removeObjects(at: IndexSet([0, 3]))
            #expect(titles(list) == ["d", "c"])
            ordered.remove(tracks[3])
            ordered.removeObjects(in: [tracks[2]])
            #expect(titles(list) == ["c"])
            #expect((tracks[0].value(forKey: "playlist") as? NSManagedObject) === list)
            #expect(tracks[1].value(forKey: "playlist") == nil)
            try stack.context.save()
            // A reorder alone is a change the next save writes.
            ordered.addObjects(from: [tracks[1]])
            try stack.context.save()
            ordered.exchangeObject(at: 0, withObjectAt: 1)
            #expect(list.hasChanges)
        }
    }

    private func titles(_ list: NSManagedObject) -> [String] {
        (list.value(forKey: "tracks") as! NSOrderedSet).array.compactMap { ($0 as! NSManagedObject).value(forKey: "title") as? String }
    }
}
