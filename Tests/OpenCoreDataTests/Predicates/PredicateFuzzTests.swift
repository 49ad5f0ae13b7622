import Foundation
import FuzzSupport
import Testing
@testable import OpenCoreData

/// Mutation fuzzing of the predicate parser, the evaluator and `description`: mutants of the seed
/// corpus (`Tests/Fixtures/PredicateSeeds.txt`, the formats of the test suite), with arguments at
/// the 64-bit limits, NaN, infinities, dates, data and collections. A crash or a hang fails the
/// run by itself; it asserts that no input takes longer than `OPENCOREDATA_FUZZ_HANG_SECONDS` and
/// that every printed predicate (but those holding NaN) parses back to an equal predicate.
///
/// CI runs a bounded number of inputs from a fixed seed; more by hand:
/// `OPENCOREDATA_FUZZ_ITERATIONS=1000000 OPENCOREDATA_FUZZ_SEED=7 swift test --filter PredicateFuzzTests`.
/// The input being tried is written to `$TMPDIR/opencoredata-fuzz-last.txt` first, so that a crash
/// names it.
@Suite struct PredicateFuzzTests {
    static let iterations = FuzzSettings.iterations("OPENCOREDATA_FUZZ_ITERATIONS", default: 20_000)
    static let seed = FuzzSettings.seed
    static let hangSeconds = FuzzSettings.hangSeconds

    static let seeds: [String] = {
        let url = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/PredicateSeeds.txt")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }()

    /// Pieces of the grammar and of its limits, inserted at random places.
    static let pieces = [
        "(", ")", "NOT ", "-", "9223372036854775808", "18446744073709551615", "%@", "%K", "%d", "{", "}", "$x",
        "SUBQUERY(", "ANY ", "@count", "@sum", "[", "]", "'", "\"", "\\", ".", "==", "<", "nan", "1e309", "0x", ",",
        " AND ", " OR ", "FUNCTION(", "TERNARY(", "CAST(", "\"NSDate\"", "SELF", "#", "*", "**", "/", "+", "[c]", "[cd]",
        "LIKE", "MATCHES", "BETWEEN", "IN", "@avg", "FIRST", "LAST", "SIZE", "-9223372036854775808", "2.5e-324", "0.0",
        "\\u", "é", "🙂", "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    /// Arguments, and whether a predicate holding them prints in a form that reads back equal:
    /// NaN is never equal to itself (nor a dictionary that holds it), and an empty string given to
    /// `%K` is a key path with no text at all.
    nonisolated(unsafe) static let arguments: [(value: Any, printsBack: Bool)] = [
        (Int64.min, true), (UInt64.max, true), (Double.nan, false), (Double.infinity, true), (-Double.infinity, true),
        (Date(timeIntervalSinceReferenceDate: .nan), false), (Data([1, 2, 3]), true), ([1, 2] as [Any], true),
        (["k": 1, "name": "x", "none": NSNull(), "when": Date(timeIntervalSinceReferenceDate: 5)] as [String: Any], true),
        (["k": Date(timeIntervalSinceReferenceDate: .nan)] as [String: Any], false), (NSNull(), true), ("str", true),
        ("name", true), (Decimal(string: "1e100")!, true), (Decimal(string: "0.1")!, true), (NSNumber(value: 9.223372036854775807e18), true),
        (Int.max, true), ("a.b", true), ("", false), (Date(timeIntervalSinceReferenceDate: 1e9), true),
    ]

    nonisolated(unsafe) static let objects: [Any] = [
        ["a": 1, "name": "x", "items": [["name": "b"], ["name": "c"]]] as [String: Any],
        ["a": Int64.min, "name": NSNull()] as [String: Any],
        ["a": Double.nan, "count": UInt64.max] as [String: Any],
    ]

    @Test func mutantsNeitherCrashNorPrintWhatDoesNotReadBack() throws {
        #expect(Self.seeds.count > 100)
        var random = SplitMix64(seed: Self.seed)
        let lastInputURL = FileManager.default.temporaryDirectory.appendingPathComponent("opencoredata-fuzz-last.txt")
        _ = FileManager.default.createFile(atPath: lastInputURL.path, contents: nil)
        let lastInput = try FileHandle(forWritingTo: lastInputURL)
        defer { try? lastInput.close() }
        var parsed = 0
        var checked = 0
        var failures: [String] = []
        var slowest: (seconds: Double, input: String) = (0, "")
        for _ in 0..<Self.iterations {
            let text = mutant(&random)
            let chosen = (0..<4).map { _ in Self.arguments[Int(random.next() % UInt64(Self.arguments.count))] }
            try lastInput.truncate(atOffset: 0)
            try lastInput.write(contentsOf: Data(text.utf8))
            let start = DispatchTime.now().uptimeNanoseconds
            defer {
                let seconds = FuzzSettings.seconds(since: start)
                if seconds > slowest.seconds { slowest = (seconds, text) }
            }
            guard let predicate = try? NSPredicate(validatingFormat: text, argumentArray: chosen.map(\.value)) else { continue }
            parsed += 1
            for object in Self.objects { _ = predicate.evaluate(with: object) }
            let printed = predicate.description
            guard chosen.allSatisfy(\.printsBack), !text.contains("nan") else { continue }
            checked += 1
            let again = try? NSPredicate(validatingFormat: printed, argumentArray: [])
            if again != predicate, failures.count < 10 { failures.append("\(text) printed \(printed), read back \(again?.description ?? "as an error")") }
        }
        print(
            "predicate fuzzing: \(Self.iterations) inputs from seed \(Self.seed), \(parsed) parsed, \(checked) printed and read back; slowest \(String(format: "%.3f", slowest.seconds)) s"
        )
        #expect(parsed > Self.iterations / 20)
        #expect(slowest.seconds < Self.hangSeconds, "slowest input: \(slowest.input)")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// A seed with one to four mutations: a piece inserted, a character removed, a run doubled.
    private func mutant(_ random: inout SplitMix64) -> String {
        var format = Array(Self.seeds[Int(random.next() % UInt64(Self.seeds.count))])
        for _ in 0..<(1 + Int(random.next() % 4)) {
            let position = Int(random.next() % UInt64(format.count + 1))
            switch random.next() % 3 {
            case 0: format.insert(contentsOf: Self.pieces[Int(random.next() % UInt64(Self.pieces.count))], at: position)
            case 1: if position < format.count { format.remove(at: position) }
            default:
                let end = min(format.count, position + 1 + Int(random.next() % 8))
                format.insert(contentsOf: format[position..<end], at: position)
            }
        }
        return String(format)
    }
}
