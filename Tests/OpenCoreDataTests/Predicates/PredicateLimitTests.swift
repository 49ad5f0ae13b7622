import Foundation
import Testing
@testable import OpenCoreData

/// Format strings at the limits fuzzing found (issue 20): 64-bit boundaries and deep nesting end in
/// a value or a parse error, never in a trap, a stack overflow or a parse that does not finish.
@Suite struct PredicateLimitTests {
    private func parse(_ format: String, _ arguments: [Any] = []) throws -> NSPredicate {
        try NSPredicate(validatingFormat: format, argumentArray: arguments)
    }

    @Test func theSmallestInt64IsALiteral() throws {
        let predicate = try parse("a == -9223372036854775808")
        #expect(predicate.evaluate(with: ["a": Int64.min]))
        #expect(!predicate.evaluate(with: ["a": Int64.max]))
        // Negating it again cannot overflow: it becomes 2^63, a double.
        let negated = try parse("a == --9223372036854775808")
        #expect(negated.evaluate(with: ["a": 9_223_372_036_854_775_808.0]))
    }

    @Test func unsignedValuesAboveInt64MaxCompareAsNumbers() throws {
        let literal = try parse("a == 18446744073709551615")
        #expect(literal.evaluate(with: ["a": UInt64.max]))
        #expect(!literal.evaluate(with: ["a": Int64.max]))
        let argument = try parse("a < %@", [NSNumber(value: UInt64.max)])
        #expect(argument.evaluate(with: ["a": Int64.max]))
        #expect(!argument.evaluate(with: ["a": UInt64.max]))
        let huge = try parse("a >= %@", [1e19])
        #expect(!huge.evaluate(with: ["a": Int64.max]))
        #expect(huge.evaluate(with: ["a": UInt64.max]))
    }

    @Test(arguments: [
        String(repeating: "(", count: 10_000) + "a == 1" + String(repeating: ")", count: 10_000),
        String(repeating: "NOT ", count: 50_000) + "a == 1",
        "a == " + String(repeating: "-", count: 50_000) + "1",
        "a == " + String(repeating: "(", count: 50_000) + "1" + String(repeating: ")", count: 50_000),
        "a == {" + String(repeating: "{", count: 10_000) + "1" + String(repeating: "}", count: 10_001),
        "a == " + Array(repeating: "abs(", count: 5_000).joined() + "1" + String(repeating: ")", count: 5_000),
    ])
    func nestingDeeperThanTheLimitIsAParseError(format: String) {
        let error = #expect(throws: NSError.self) { try parse(format) }
        #expect(error?.code == NSFormattingError)
        let message = error?.localizedDescription ?? ""
        #expect(message.contains("nested deeper than \(PredicateParser.maximumDepth) levels"))
    }

    @Test func nestingUpToTheLimitParses() throws {
        let depth = PredicateParser.maximumDepth / 4
        let parenthesized = String(repeating: "(", count: depth) + "a" + String(repeating: ")", count: depth) + " == 1"
        #expect(try parse(parenthesized).evaluate(with: ["a": 1]))
        let negations = String(repeating: "NOT ", count: depth) + "a == 1"
        #expect(try parse(negations).evaluate(with: ["a": 1]) == (depth % 2 == 0))
    }

    /// A parenthesized expression inside a parenthesized predicate is read once a level, not once
    /// a path: without the memo this nesting took longer than the test suite.
    @Test func ambiguousParenthesesNestedInFunctionsParseOnce() throws {
        var format = "a"
        for _ in 0..<20 { format = "TERNARY(((\(format)) == 1), 1, 0)" }
        let predicate = try parse(format + " == 1")
        // a == 1 makes every level 1, so the outermost TERNARY is 1.
        #expect(predicate.evaluate(with: ["a": 1]))
        #expect(!predicate.evaluate(with: ["a": 2]))
    }

    /// TRUEPREDICATE printed as `<NSPredicate: 0x…>` (Linux's description of Foundation's value
    /// predicate), which does not parse back.
    @Test(arguments: ["TRUEPREDICATE", "FALSEPREDICATE", "TRUEPREDICATE AND a == 1", "NOT FALSEPREDICATE"])
    func constantPredicatesPrintAndParseBack(format: String) throws {
        let predicate = try parse(format)
        #expect(predicate.description == format)
        let again = try parse(predicate.description)
        #expect(again == predicate)
        #expect(again.evaluate(with: ["a": 1]) == predicate.evaluate(with: ["a": 1]))
    }

    /// A dictionary constant printed through Foundation's description trapped on a date whose
    /// interval is NaN.
    @Test func aDictionaryConstantPrintsWithoutFoundationsDescription() throws {
        let predicate = try parse("a == %@", [["when": Date(timeIntervalSinceReferenceDate: .nan), "n": 1] as [String: Any]])
        #expect(predicate.description == #"a == {"n": 1, "when": CAST(nan, "NSDate")}"#)
    }

    /// Infinities printed as `inf`, which reads back as a key path.
    @Test(arguments: [Double.infinity, -Double.infinity])
    func infinitiesPrintAsACastThatReadsBack(value: Double) throws {
        let predicate = try parse("a < %@", [value])
        #expect(predicate.description == "a < CAST(\"\(value)\", \"NSNumber\")")
        let again = try parse(predicate.description)
        #expect(again == predicate)
        #expect(again.evaluate(with: ["a": 1]) == (value > 0))
    }

    /// A variable as a key path's second component trapped in the evaluator (one of issue 20's
    /// hidden traps); it now reads the key path the variable holds (`FoundationAnswersTests`),
    /// and an unbound one, or one bound to no string, reads nothing.
    @Test(arguments: ["$a.$b == 1", "a.$b == 1", "$a.$b.$c == 1"])
    func aVariableAfterAKeyPathNeverTraps(format: String) throws {
        let predicate = try parse(format)
        #expect(!predicate.evaluate(with: ["a": ["b": 1]]))
        #expect(!predicate.evaluate(with: ["a": 1], substitutionVariables: ["a": 1, "b": 2, "c": NSNull()]))
    }
}
