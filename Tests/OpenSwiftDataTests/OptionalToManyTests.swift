import Foundation
import Observation
import Testing

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// An album whose tracks are an optional array, as models written for CloudKit declare every
/// relationship.
@Model final class Album {
    var title: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Track.album) var tracks: [Track]? = []

    init(title: String) { self.title = title }
}

/// A track of an album.
@Model final class Track {
    var name: String = ""
    var album: Album?

    init(name: String) { self.name = name }
}

/// A to-many relationship declared as an optional array (`[Track]? = []`), as CloudKit requires
/// of SwiftData models: derived as a to-many relationship, filled before and after the insert,
/// saved, read back, cascaded, and `nil` read as no models.
@Suite struct OptionalToManyTests {
    let folder = TemporaryDirectory()

    func container() throws -> ModelContainer {
        try ModelContainer(for: Album.self, configurations: ModelConfiguration(url: folder.file("albums.store")))
    }

    @Test func anOptionalArrayIsAToManyRelationship() throws {
        let album = try #require(Schema([Album.self]).entities.first { $0.name == "Album" })
        let tracks = try #require(album.relationships.first { $0.name == "tracks" })
        #expect(!tracks.isToOneRelationship && tracks.destination == "Track" && tracks.deleteRule == .cascade)
        #expect(tracks.inverseName == "album")
    }

    @Test func tracksAddedBeforeAndAfterTheInsertAreSavedAndReadBack() throws {
        let container = try container()
        let context = ModelContext(container)
        let album = Album(title: "Kind of Blue")
        album.tracks?.append(Track(name: "So What"))
        context.insert(album)
        album.tracks?.append(Track(name: "Blue in Green"))
        try context.save()
        #expect(album.tracks?.count == 2)

        let reader = ModelContext(container)
        let read = try #require(try reader.fetch(FetchDescriptor<Album>()).first)
        #expect(read.tracks?.map(\.name).sorted() == ["Blue in Green", "So What"])
        #expect(read.tracks?.allSatisfy { $0.album === read } == true)

        let tracks = try reader.fetch(FetchDescriptor<Track>(predicate: #Predicate { $0.album?.title == "Kind of Blue" }))
        #expect(tracks.count == 2)

        let withSoWhat = try reader.fetch(FetchDescriptor<Album>(predicate: #Predicate { album in
            album.tracks?.contains { $0.name == "So What" } == true
        }))
        #expect(withSoWhat.map(\.title) == ["Kind of Blue"])
        let long = try reader.fetchCount(FetchDescriptor<Album>(predicate: #Predicate { ($0.tracks?.count ?? 0) > 1 }))
        #expect(long == 1)
        let coalesced = try reader.fetchCount(FetchDescriptor<Album>(predicate: #Predicate { album in
            album.tracks?.contains { $0.name == "Freddie Freeloader" } ?? false
        }))
        #expect(coalesced == 0)

        reader.delete(read)
        try reader.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Track>()) == 0)
    }

    /// nil set before the insert reads nil until then; after, the relationship reads as its
    /// (no) models, and nil empties it, its inverse cleared.
    @Test func nilTracksAreNoTracks() throws {
        let container = try container()
        let context = ModelContext(container)
        let album = Album(title: "Silence")
        album.tracks = nil
        #expect(album.tracks == nil)
        context.insert(album)
        try context.save()
        #expect(album.tracks?.isEmpty == true)

        let reader = ModelContext(container)
        let read = try #require(try reader.fetch(FetchDescriptor<Album>()).first)
        #expect(read.tracks?.isEmpty == true)
        let track = Track(name: "4′33″")
        read.tracks = [track]
        try reader.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Track>()) == 1)
        #expect(track.album === read)

        read.tracks = nil
        #expect(read.tracks?.isEmpty == true && track.album == nil)
        try reader.save()
        let third = ModelContext(container)
        #expect(try third.fetch(FetchDescriptor<Album>()).first?.tracks?.isEmpty == true)
    }

    /// A change of the optional array is heard by an observer of it, before and after the insert.
    @Test func aChangeOfTheTracksIsHeard() throws {
        let context = ModelContext(try container())
        let album = Album(title: "Giant Steps")
        for inserting in [false, true] {
            if inserting {
                context.insert(album)
                try context.save()
            }
            expectHeard(reading: { _ = album.tracks }, notChanging: { album.title += "!" }) {
                album.tracks?.append(Track(name: inserting ? "Naima" : "Cousin Mary"))
            }
        }
        #expect(album.tracks?.count == 2)
    }
}
