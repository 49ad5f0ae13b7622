import Foundation
import Testing

#if !canImport(SwiftData)
import OpenSwiftData

/// A model written without `@Model`, as the macro expanded before it wrote
/// `init(_materializing:)`: its backing starts as `@Model`'s does, and its `init(backingData:)`
/// replaces it. OpenSwiftData's own API, so only built where Apple's SwiftData is not.
final class HandWrittenNote: PersistentModel {
    var persistentBackingData: _ModelBacking = .detached(for: HandWrittenNote.self)

    init(backingData: _ModelBacking) {
        persistentBackingData = backingData
    }

    init(text: String) {
        self.text = text
    }

    static var schemaMetadata: [Schema.PropertyMetadata] {
        [Schema.PropertyMetadata(name: "text", keypath: \HandWrittenNote.text, defaultValue: nil, metadata: nil)]
    }

    var text: String {
        get { _persistedValue(index: 0, key: "text", observing: \.text) }
        set { _setPersistedValue(newValue, index: 0, key: "text", observing: \.text) }
    }
}

/// The models a context makes for stored rows, whichever initializer the class has.
@Suite struct ModelMaterializationTests {
    let folder = TemporaryDirectory()

    /// A fetched model of a class written by hand holds its row: made through its own
    /// `init(backingData:)`, it is given its managed object after.
    @Test func aFetchedModelOfAHandWrittenClassReadsItsRow() throws {
        let container = try ModelContainer(for: HandWrittenNote.self, configurations: ModelConfiguration(url: folder.file("notes.store")))
        let writer = ModelContext(container)
        writer.insert(HandWrittenNote(text: "milk"))
        writer.insert(HandWrittenNote(text: "eggs"))
        try writer.save()

        let reader = ModelContext(container)
        let notes = try reader.fetch(FetchDescriptor<HandWrittenNote>())
        #expect(notes.map(\.text).sorted() == ["eggs", "milk"])
        #expect(notes.allSatisfy { $0.modelContext === reader })
        // The same model for the same row while it is held: the object refers to it.
        let again = try reader.fetch(FetchDescriptor<HandWrittenNote>())
        #expect(Set(again.map(ObjectIdentifier.init)) == Set(notes.map(ObjectIdentifier.init)))
    }
}
#endif
