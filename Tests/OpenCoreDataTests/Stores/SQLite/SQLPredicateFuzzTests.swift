import Foundation
import FuzzSupport
import Testing

@testable import OpenCoreData

/// Differential fuzzing of the SQL predicate compiler: random predicates over the library fixture
/// (every comparison and string operator with its options, to-one and to-many key paths, ANY /
/// ALL / NONE, `@count`, SUBQUERY, AND / OR / NOT, constants at the limits) are fetched through
/// the SQLite store and evaluated in memory on every object, and both must select the same books.
/// A fetch the compiler refuses with an error is allowed; a crash, or a difference, is not.
///
/// CI runs a bounded number of predicates; more by hand:
/// `OPENCOREDATA_SQL_FUZZ_ITERATIONS=100000 OPENCOREDATA_FUZZ_SEED=7 swift test --filter SQLPredicateFuzzTests`.
@Suite struct SQLPredicateFuzzTests {
    static let iterations = FuzzSettings.iterations("OPENCOREDATA_SQL_FUZZ_ITERATIONS", default: 2_000)
    static let seed = FuzzSettings.seed

    static let stringKeys = ["title", "isbn", "author.name", "publisher.name"]
    static let numberKeys = ["pages"]
    nonisolated(unsafe) static let strings: [Any] = [
        "Nana", "nana", "NANA", "a", "é", "e", "Zoë", "zoe", "%", "_", "'", "\\", "100%", "", "classic", "Classic", "résumé",
        "resume", "Gallimard", "*", "?", "N*", "*a", ".*", "[a-z]+", "(", NSNull(), "9", "400",
    ]
    nonisolated(unsafe) static let numbers: [Any] = [
        0, 1, 42, 120, 310, 400, 5000, -1, Int64.min, Int64.max, UInt64.max, 2.5, -0.0, Double.infinity, 1e300, NSNull(),
        "400", true,
    ]
    static let comparisons = ["==", "!=", "<", "<=", ">", ">="]
    static let stringOperators = ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "==", "!=", "<", ">="]
    static let options = ["", "[c]", "[d]", "[cd]"]

    @Test func sqlAndMemoryAgreeOnRandomPredicates() throws {
        let library = try LibraryFixture()
        var random = SplitMix64(seed: Self.seed)
        var compared = 0
        var refused = 0
        var selective = 0
        var differences: [String] = []
        try library.context.performAndWait {
            let keys = library.keysByID
            let all = try library.fetch("Book", nil)
            for _ in 0..<Self.iterations {
                var arguments: [Any] = []
                let format = predicate(depth: 0, &random, &arguments)
                guard let predicate = try? NSPredicate(validatingFormat: format, argumentArray: arguments) else { continue }
                guard let fetched = try? library.fetch("Book", predicate) else {
                    refused += 1
                    continue
                }
                compared += 1
                let sql = Set(fetched.map { keys[$0.objectID]! })
                let memory = Set(all.filter { predicate.evaluate(with: $0) }.map { keys[$0.objectID]! })
                if !memory.isEmpty, memory.count < all.count { selective += 1 }
                if sql != memory, differences.count < 20 {
                    differences.append("\(predicate): SQL \(sql.sorted()), memory \(memory.sorted())")
                }
            }
        }
        print("SQL predicate fuzzing: \(Self.iterations) predicates from seed \(Self.seed), \(compared) compared (\(selective) selecting some books, not all), \(refused) refused by the store")
        #expect(compared > Self.iterations / 2)
        // Agreement means something only when predicates tell books apart.
        #expect(selective > compared / 4)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    private func pick<T>(_ items: [T], _ random: inout SplitMix64) -> T { items[Int(random.next() % UInt64(items.count))] }

    /// A predicate format with `%@` placeholders, its arguments appended to `arguments`.
    private func predicate(depth: Int, _ random: inout SplitMix64, _ arguments: inout [Any]) -> String {
        let choice = depth >= 3 ? random.next() % 6 : random.next() % 9
        switch choice {
        case 0, 1:
            arguments.append(pick(Self.strings, &random))
            return "\(pick(Self.stringKeys, &random)) \(pick(Self.stringOperators, &random))\(pick(Self.options, &random)) %@"
        case 2:
            arguments.append(pick(Self.numbers, &random))
            return "pages \(pick(Self.comparisons, &random)) %@"
        case 3:
            arguments.append(pick(Self.strings, &random))
            let quantifier = pick(["ANY ", "ALL ", "NONE ", ""], &random)
            return "\(quantifier)tags.label \(pick(Self.stringOperators, &random))\(pick(Self.options, &random)) %@"
        case 4:
            arguments.append(pick([0, 1, 2, 3, -1, 4] as [Any], &random))
            return "tags.@count \(pick(Self.comparisons, &random)) %@"
        case 5:
            let list = (0..<(random.next() % 4)).map { _ in pick(Self.strings + Self.numbers, &random) }
            arguments.append(list)
            let key = pick(Self.stringKeys + Self.numberKeys, &random)
            return random.next() % 2 == 0 ? "\(key) IN\(pick(Self.options, &random)) %@" : "\(key) BETWEEN %@"
        case 6:
            let inner = predicate(depth: depth + 1, &random, &arguments)
            return "NOT (\(inner))"
        case 7:
            let left = predicate(depth: depth + 1, &random, &arguments)
            let right = predicate(depth: depth + 1, &random, &arguments)
            return "(\(left)) \(pick(["AND", "OR"], &random)) (\(right))"
        default:
            arguments.append(pick(Self.strings, &random))
            let count = random.next() % 3
            return "SUBQUERY(tags, $t, $t.label \(pick(Self.stringOperators, &random))\(pick(Self.options, &random)) %@).@count \(pick(Self.comparisons, &random)) \(count)"
        }
    }
}
