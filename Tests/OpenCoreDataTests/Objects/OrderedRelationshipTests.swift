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

    private func titles(_ list: NSManagedObject) -> [String] {
        (list.value(forKey: "tracks") as! NSOrderedSet).array.compactMap { ($0 as! NSManagedObject).value(forKey: "title") as? String }
    }
}
