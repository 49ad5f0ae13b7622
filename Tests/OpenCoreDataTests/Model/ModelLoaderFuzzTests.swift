import Foundation
import FuzzSupport
import Testing

@testable import OpenCoreData

/// Mutation fuzzing of the model loader and of what a loaded model is used for: mutants of the
/// fixture models and `Tests/Fixtures/ModelSeeds/` (bytes flipped, removed or repeated, pieces of
/// the format and of its limits inserted, attribute values swapped), each loaded and, when it
/// loads, given to a coordinator with a store, one object of each entity inserted, saved and
/// fetched back. A crash fails the run by itself; it asserts that no input takes longer than
/// `OPENCOREDATA_FUZZ_HANG_SECONDS` (10 by default: a debug build on a loaded machine; the
/// figures in docs/reliability.md come from release runs against 1 s).
///
/// CI runs a bounded number of inputs from a fixed seed; more by hand:
/// `OPENCOREDATA_MODEL_FUZZ_ITERATIONS=100000 OPENCOREDATA_FUZZ_SEED=7 swift test --filter ModelLoaderFuzzTests`.
/// The input being tried is written to `$TMPDIR/opencoredata-model-fuzz-last.xml` first, so that a
/// crash leaves it behind.
@Suite struct ModelLoaderFuzzTests {
    static let iterations = FuzzSettings.iterations("OPENCOREDATA_MODEL_FUZZ_ITERATIONS", default: 3_000)
    static let seed = FuzzSettings.seed
    static let hangSeconds = FuzzSettings.hangSeconds

    static let seeds: [[UInt8]] = {
        var files = [
            "AppleCoreData/SampleModel/SampleModel.xcdatamodeld/SampleModel.xcdatamodel/contents",
            "AppleCoreData/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel/contents",
            "AppleCoreData/SampleModel/SampleModel.xcdatamodeld/SampleModel3.xcdatamodel/contents",
            "AppleCoreData/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3.xcdatamodel/contents",
            "AppleCoreData/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3_v2.xcdatamodel/contents",
            "AppleCoreData/SampleModel3/SampleModel3.xcdatamodeld/SampleModel3_v3.xcdatamodel/contents",
        ]
        files += ["ModelSeeds/Features.contents", "ModelSeeds/Library.contents"]
        let fixtures = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures")
        return files.compactMap { try? Array(Data(contentsOf: fixtures.appendingPathComponent($0))) }
    }()

    /// Pieces of the format, of XML and of the limits, inserted at random places.
    static let pieces: [[UInt8]] = [
        "<", ">", "/>", "\"", "'", "=", "&", "&amp;", "&#0;", "&#xD800;", "&lt;", "<![CDATA[", "]]>", "<!--", "-->",
        "<!DOCTYPE model [<!ENTITY e \"eee\">]>", "&e;", "<?xml version=\"1.0\"?>", "<entity name=\"E\">", "</entity>",
        "<entity name=\"Car\"/>", " parentEntity=\"Car\"", " parentEntity=\"", " isAbstract=\"YES\"",
        "<attribute name=\"x\" attributeType=\"String\"/>", " attributeType=\"", "Integer 16", "Integer 64", "Float",
        "Transformable", "Binary", "Decimal", "Date", "UUID", "URI", "Boolean", "Object ID", " optional=\"YES\"",
        " transient=\"YES\"", " defaultValueString=\"", "9223372036854775807", "-9223372036854775808",
        "18446744073709551615", "1e309", "nan", "-0", "0x10", "", " minValueString=\"", " maxValueString=\"",
        " regularExpressionString=\"(", " defaultDateTimeInterval=\"", "<relationship name=\"r\" destinationEntity=\"Car\"/>",
        " toMany=\"YES\"", " ordered=\"YES\"", " maxCount=\"", " minCount=\"", " inverseName=\"", " destinationEntity=\"",
        " deletionRule=\"Cascade\"", " deletionRule=\"Deny\"", "<uniquenessConstraints><uniquenessConstraint><constraint value=\"",
        "</uniquenessConstraint></uniquenessConstraints>", "<fetchRequest name=\"F\" entity=\"Car\" predicateString=\"",
        "<configuration name=\"C\"><memberEntity name=\"", "<fetchIndex name=\"i\"><fetchIndexElement property=\"",
        "<userInfo><entry key=\"k\" value=\"v\"/></userInfo>", " name=\"\"", " name=\"Z_PK\"", " name=\"objectID\"",
        "é", "🙂", "\u{0}", "\t", "\n", " encoding=\"ISO-8859-1\"", " encoding=\"UTF-16\"", " encoding=\"EBCDIC\"",
        "<!DOCTYPE model SYSTEM \"file:///etc/passwd\">", "<!ENTITY % p SYSTEM \"file:///etc/hosts\">", "<xi:include href=\"/etc/passwd\"/>",
    ].map { Array($0.utf8) } + [[0xC3], [0xFF], [0x80], [0xED, 0xA0, 0x80], [0xEF, 0xBB, 0xBF]]

    @Test func mutantsNeitherCrashNorHang() throws {
        #expect(Self.seeds.count == 8)
        var random = SplitMix64(seed: Self.seed)
        let lastInput = FileManager.default.temporaryDirectory.appendingPathComponent("opencoredata-model-fuzz-last.xml")
        let folder = TemporaryDirectory()
        let file = folder.file("Fuzz.xcdatamodel/contents")
        var loaded = 0
        var saved = 0
        var slowest: (seconds: Double, input: [UInt8]) = (0, [])
        for iteration in 0..<Self.iterations {
            let bytes = mutant(&random)
            try Data(bytes).write(to: lastInput)
            let start = DispatchTime.now().uptimeNanoseconds
            if let model = try? XcodeModelLoader.model(from: Data(bytes), file: file) {
                loaded += 1
                // A SQLite store for one input in 16: creating a file per input would make the
                // run mostly file system time.
                if use(model, sqliteIn: iteration % 16 == 0 ? folder.file("Store\(iteration).sqlite") : nil) { saved += 1 }
            }
            let seconds = FuzzSettings.seconds(since: start)
            if seconds > slowest.seconds { slowest = (seconds, bytes) }
        }
        print(
            "model fuzzing: \(Self.iterations) inputs from seed \(Self.seed), \(loaded) loaded, \(saved) saved; slowest \(String(format: "%.3f", slowest.seconds)) s"
        )
        #expect(loaded > Self.iterations / 20)
        #expect(saved > 0)
        #expect(slowest.seconds < Self.hangSeconds, "slowest input:\n\(String(decoding: slowest.input, as: UTF8.self))")
    }

    /// Opens a store with `model`, inserts one object of each concrete entity, saves, and runs each
    /// fetch request template; whether the save succeeded (a mutant's defaults or constraints
    /// often make it fail validation, which is fine).
    private func use(_ model: NSManagedObjectModel, sqliteIn url: URL?) -> Bool {
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        do {
            if let url {
                try coordinator.addPersistentStore(type: .sqlite, at: url)
            } else {
                try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
            }
        } catch {
            return false
        }
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context.performAndWait {
            for (index, entity) in model.entities.enumerated() where !entity.isAbstract {
                let object = NSManagedObject(entity: entity, insertInto: context)
                for attribute in entity.attributesByName.values.sorted(by: { $0.name < $1.name }) {
                    if let value = Self.value(of: attribute.attributeType, extreme: index % 2 == 0) {
                        object.setValue(value, forKey: attribute.name)
                    }
                }
            }
            let saved = (try? context.save()) != nil
            context.rollback()
            for template in model.fetchRequestTemplatesByName.values {
                _ = try? context.fetch(template)
            }
            for entity in model.entities {
                _ = try? context.count(for: NSFetchRequest<NSManagedObject>(entityName: entity.name!))
            }
            return saved
        }
    }

    /// A value of `type`, ordinary or at its type's limit, for a store to write.
    static func value(of type: NSAttributeType, extreme: Bool) -> Any? {
        switch type {
        case .integer16AttributeType: NSNumber(value: extreme ? Int16.min : 7)
        case .integer32AttributeType: NSNumber(value: extreme ? Int32.max : 7)
        case .integer64AttributeType: NSNumber(value: extreme ? Int64.min : 7)
        case .doubleAttributeType: NSNumber(value: extreme ? -Double.greatestFiniteMagnitude : 0.5)
        case .floatAttributeType: NSNumber(value: extreme ? Float.infinity : 0.5)
        case .decimalAttributeType: NSDecimalNumber(string: extreme ? "-1e120" : "12.5")
        case .booleanAttributeType: NSNumber(value: extreme)
        case .stringAttributeType: extreme ? String(repeating: "é🙂\u{0}", count: 100) : "Text"
        case .dateAttributeType: Date(timeIntervalSinceReferenceDate: extreme ? -1e15 : 86_400)
        case .binaryDataAttributeType: Data(repeating: extreme ? 0xFF : 1, count: extreme ? 100_000 : 3)
        case .UUIDAttributeType: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, extreme ? 255 : 1))
        case .URIAttributeType: URL(string: extreme ? "x:" : "https://example.com")
        default: nil
        }
    }

    /// A seed with one or two mutations, sometimes up to four (most files with four no longer
    /// load, so they test the parser but nothing after it).
    private func mutant(_ random: inout SplitMix64) -> [UInt8] {
        var bytes = Self.seeds[Int(random.next() % UInt64(Self.seeds.count))]
        for _ in 0..<(1 + Int(random.next() % 2) + (random.next() % 4 == 0 ? 2 : 0)) {
            let position = Int(random.next() % UInt64(bytes.count + 1))
            switch random.next() % 5 {
            case 0: bytes.insert(contentsOf: Self.pieces[Int(random.next() % UInt64(Self.pieces.count))], at: position)
            case 1:
                let end = min(bytes.count, position + 1 + Int(random.next() % 16))
                bytes.removeSubrange(position..<end)
            case 2:
                let end = min(bytes.count, position + 1 + Int(random.next() % 64))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 3: if position < bytes.count { bytes[position] ^= UInt8(truncatingIfNeeded: 1 << (random.next() % 8)) }
            default: swapQuotedValue(in: &bytes, &random)
            }
        }
        return bytes
    }

    /// Replaces one quoted value with another from the same file, so that names, types and
    /// numbers end up where another kind of value belongs.
    private func swapQuotedValue(in bytes: inout [UInt8], _ random: inout SplitMix64) {
        let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") }
        guard quotes.count >= 4 else { return }
        let pairs = quotes.count / 2
        let target = Int(random.next() % UInt64(pairs)) * 2
        let source = Int(random.next() % UInt64(pairs)) * 2
        let value = Array(bytes[(quotes[source] + 1)..<quotes[source + 1]])
        bytes.replaceSubrange((quotes[target] + 1)..<quotes[target + 1], with: value)
    }
}
