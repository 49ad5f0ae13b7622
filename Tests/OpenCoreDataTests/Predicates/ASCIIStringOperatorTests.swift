import Foundation
import Testing
@testable import OpenCoreData

/// The SQLite store's string function answers ASCII text from its bytes: every answer must be
/// the one the evaluator gives the same strings, folding and all.
@Suite struct ASCIIStringOperatorTests {
    static let texts = ["", "Item 12", "item 1", "ITEM 100", "a*b", "a?c", "back\\slash", "tem", "Tem 1 tem 1", "x\u{0}y", "~^`"]
    static let patterns = ["", "item 1", "ITEM 1*", "*tem 1*", "TEM 1", "a\\*b", "a?c", "a*", "*", "?", "\\", "back\\\\slash", "x\u{0}y", "~^`", "i*1*0"]
    static let operators: [OpenCoreData.NSComparisonPredicate.Operator] = [.beginsWith, .endsWith, .contains, .like]

    @Test func answersAsTheEvaluatorDoesForASCII() {
        var compared = 0
        for text in Self.texts {
            for pattern in Self.patterns {
                for type in Self.operators {
                    for (ci, di) in [(false, false), (true, false), (false, true), (true, true)] {
                        let expected = PredicateEvaluator.stringOperator(type, text, pattern, ci, di)
                        let answer = Array(text.utf8).withUnsafeBufferPointer { t in
                            Array(pattern.utf8).withUnsafeBufferPointer { p in PredicateEvaluator.asciiStringOperator(type, t, p, ci) }
                        }
                        #expect(answer == expected, "\(text.debugDescription) \(type.rawValue) \(pattern.debugDescription) ci \(ci) di \(di)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == Self.texts.count * Self.patterns.count * Self.operators.count * 4)
    }

    @Test func leavesOtherTextToTheEvaluator() {
        let answer = Array("Ítem 1".utf8).withUnsafeBufferPointer { t in
            Array("item".utf8).withUnsafeBufferPointer { p in PredicateEvaluator.asciiStringOperator(.beginsWith, t, p, true) }
        }
        #expect(answer == nil)
        // And the store's SQL still answers it by folding: "Ítem 1" begins with "item" under [cd].
        #expect(PredicateEvaluator.stringOperator(.beginsWith, "Ítem 1", "item", true, true))
    }
}
