import Foundation
import FuzzSupport
import Testing

@testable import OpenCoreData

/// Mutation fuzzing of what reads a transformable attribute's stored bytes: keyed archives of
/// Foundation's classes, damaged (bits flipped, bytes set to limits, cut, pieces repeated), read
/// through the secure and the keyed unarchive transformers. Linux's own unarchiver stops the
/// program on such archives; `KeyedArchiveReader` must return nil instead, and read every
/// undamaged seed back equal.
///
/// `OPENCOREDATA_ARCHIVE_FUZZ_ITERATIONS` runs more (20,000 by default).
@Suite struct KeyedArchiveFuzzTests {
    static let iterations = FuzzSettings.iterations("OPENCOREDATA_ARCHIVE_FUZZ_ITERATIONS", default: 20_000)

    static func seeds() throws -> [(object: NSObject, data: Data)] {
        let objects: [NSObject] = [
            NSString(string: "héllo"),
            NSNumber(value: Int64.min),
            NSNumber(value: 2.5),
            NSArray(array: [NSString(string: "a"), NSNumber(value: 1), NSNull()]),
            NSDictionary(dictionary: ["colors": NSArray(array: [NSString(string: "red")]), "size": NSNumber(value: 3)]),
            NSSet(array: [NSString(string: "x"), NSString(string: "y")]),
            NSDate(timeIntervalSinceReferenceDate: 123.5),
            NSData(data: Data([0, 1, 255])),
            NSURL(string: "https://example.com/a?b=c")!,
            NSUUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            NSDictionary(dictionary: ["nested": NSDictionary(dictionary: ["deeper": NSArray(array: [NSDate(timeIntervalSinceReferenceDate: 0)])])]),
        ]
        return try objects.map { ($0, try NSKeyedArchiver.archivedData(withRootObject: $0, requiringSecureCoding: true)) }
    }

    @Test func undamagedArchivesReadBackEqual() throws {
        for (object, data) in try Self.seeds() {
            let read = KeyedArchiveReader.object(from: data)
            #expect((read as? NSObject)?.isEqual(object) == true, "\(object) read as \(String(describing: read))")
        }
    }

    @Test func damagedArchivesNeverStopTheProgram() throws {
        let seeds = try Self.seeds().map { [UInt8]($0.data) }
        var random = SplitMix64(seed: FuzzSettings.seed)
        let secure = NSSecureUnarchiveFromDataTransformer()
        let keyed = try #require(ValueTransformer.valueTransformer(forName: .keyedUnarchiveFromDataTransformerName))
        var decoded = 0
        for _ in 0..<Self.iterations {
            let bytes = ByteMutation.damage(seeds[Int(random.next() % UInt64(seeds.count))], &random)
            let data = Data(bytes)
            if secure.transformedValue(data) != nil { decoded += 1 }
            _ = keyed.transformedValue(data)
        }
        print("archive fuzzing: \(Self.iterations) damaged archives, \(decoded) still read as an object")
        #expect(decoded > 0)
    }
}
