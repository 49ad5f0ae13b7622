import Foundation
import Testing

@testable import OpenCoreData

/// LIKE and MATCHES in SQL on the SQLite store: a LIKE pattern `text*` is a range of the column,
/// any other case-sensitive LIKE a GLOB, and a regular expression that begins with literal text
/// runs only on that text's range; each selects exactly what the in-memory evaluator selects,
/// over strings chosen to tell the two apart (wildcards and GLOB's specials taken literally,
/// newlines, NUL characters, decomposed accents, case, the empty string, nil).
@Suite struct LikeAndMatchesTests {
    static let values: [String?] = [
        "Item 1", "Item 10", "Item 1\nX", "Item [1]", "Item *", "Item ?", "Item \\", "e\u{301}té", "été", "Item\u{0}1", "Item 1\u{0}", "",
        "item 1", "ITEM 1", "Item 2", "[x]", "a*b", "a?b", "abc", "Ab", "Ïtem", "Item 1é", "ÏTEM 1", "\u{212A}elvin", "kelvin", "STRASSE", "Straße",
        "100% off", "a_b", "Item 1\rY", "Item 1\u{2028}Z", "Item 1\u{85}", "Item 1\tT", "Item 1\u{0}\n", nil,
        "Item 1\u{0B}v", "Item 1\u{0C}f", "Item 1\n", "Item 1\u{2029}", "Item 1x\r\n", "Item 1\u{FFFD}",
    ]

    /// A predicate format with the pattern as its argument, and what SQL must hold for it (nil:
    /// the evaluator's function may run).
    struct Case: @unchecked Sendable, CustomTestStringConvertible {
        // @unchecked Sendable: immutable constants read by the tests.
        let format: String
        let pattern: String
        let sqlHas: String?
        var testDescription: String { "\(format) with \(pattern.debugDescription)" }
    }

    static let cases: [Case] = [
        Case(format: "value LIKE %@", pattern: "Item 1*", sqlHas: ">="),
        Case(format: "NOT (value LIKE %@)", pattern: "Item 1*", sqlHas: ">="),
        Case(format: "value LIKE %@", pattern: "Item 1", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "Item ?", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "Item [1]", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "Item \\*", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "Item \\?", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "Item \\\\", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "Item \\", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "*1", sqlHas: "GLOB"),
        Case(format: "NOT (value LIKE %@)", pattern: "*1", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "Item*1*", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "?tem*", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "e*", sqlHas: ">="),
        Case(format: "value LIKE %@", pattern: "e\u{301}*", sqlHas: ">="),
        Case(format: "value LIKE %@", pattern: "a\\*b", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "a?b", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "[x]", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "*", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "*\n*", sqlHas: "GLOB"),
        Case(format: "value LIKE %@", pattern: "Item\u{0}*", sqlHas: nil),
        // Folding: the evaluator's function, which compares ASCII values on their bytes.
        Case(format: "value LIKE[c] %@", pattern: "item 1*", sqlHas: "OCD_STRING"),
        Case(format: "NOT (value LIKE[c] %@)", pattern: "item 1*", sqlHas: "OCD_STRING"),
        Case(format: "value LIKE[c] %@", pattern: "?TEM ?", sqlHas: "OCD_STRING"),
        Case(format: "value LIKE[c] %@", pattern: "*\\**", sqlHas: "OCD_STRING"),
        Case(format: "value LIKE[c] %@", pattern: "*%*", sqlHas: "OCD_STRING"),
        Case(format: "value LIKE[c] %@", pattern: "a_b", sqlHas: "OCD_STRING"),
        Case(format: "value LIKE[c] %@", pattern: "kelvin", sqlHas: "OCD_STRING"),
        Case(format: "value LIKE[cd] %@", pattern: "item*", sqlHas: "OCD_STRING"),
        Case(format: "value LIKE[d] %@", pattern: "Item*", sqlHas: "OCD_STRING"),
        Case(format: "value CONTAINS[cd] %@", pattern: "TEM 1", sqlHas: "OCD_STRING"),
        Case(format: "value CONTAINS[c] %@", pattern: "%", sqlHas: "OCD_STRING"),
        // No string contains the empty string (NSString's answer): no row, decided in SQL.
        Case(format: "value CONTAINS[c] %@", pattern: "", sqlHas: "WHERE 0"),
        Case(format: "value BEGINSWITH[c] %@", pattern: "strasse", sqlHas: "OCD_STRING"),
        Case(format: "value ENDSWITH[cd] %@", pattern: "E", sqlHas: "OCD_STRING"),
        Case(format: "value BEGINSWITH[d] %@", pattern: "Item", sqlHas: "OCD_STRING"),
        Case(format: "value CONTAINS[c] %@", pattern: "é", sqlHas: nil),
        Case(format: "value BEGINSWITH %@", pattern: "Item 1", sqlHas: ">="),
        Case(format: "NOT (value BEGINSWITH %@)", pattern: "Item", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "Item 1.*", sqlHas: ">="),
        Case(format: "NOT (value MATCHES %@)", pattern: "Item 1.*", sqlHas: ">="),
        // `text.*`: the range decides, but for strings with a line terminator or a NUL.
        Case(format: "value MATCHES %@", pattern: "Item 1.*", sqlHas: SQLPredicateFunctions.names.isSingleLine),
        Case(format: "NOT (value MATCHES %@)", pattern: "Item .*", sqlHas: SQLPredicateFunctions.names.isSingleLine),
        Case(format: "value MATCHES %@", pattern: "Item.*", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "Item 1\n.*", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "Item 1", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "Item [0-9]+", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "It?em.*", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "Ite{1}m.*", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "Item 1|abc", sqlHas: nil),
        Case(format: "value MATCHES %@", pattern: "été", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "e\u{301}.*", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "\\QItem\\E.*", sqlHas: nil),
        Case(format: "value MATCHES %@", pattern: "a\\*b", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "(?i)item 1", sqlHas: nil),
        Case(format: "value MATCHES %@", pattern: "Item \\d+", sqlHas: ">="),
        Case(format: "value MATCHES %@", pattern: "abc?", sqlHas: ">="),
        Case(format: "value MATCHES[c] %@", pattern: "item 1.*", sqlHas: nil),
    ]

    @Test(arguments: cases)
    func sqlSelectsWhatMemoryDoes(_ row: Case) throws {
        let entity = TestModels.entity("Text", [TestModels.attribute("value", .stringAttributeType)])
        let model = NSManagedObjectModel()
        model.entities = [entity]
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory)
        let recorder = StatementRecorder(stack.store)
        try stack.context.performAndWait {
            for value in Self.values {
                NSEntityDescription.insertNewObject(forEntityName: "Text", into: stack.context).setValue(value, forKey: "value")
            }
            try stack.context.save()
            let predicate = NSPredicate(format: row.format, row.pattern)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Text")
            recorder.reset()
            request.predicate = predicate
            let fetched = try stack.context.fetch(request).map { $0.value(forKey: "value") as? String ?? "<nil>" }
            request.predicate = nil
            let evaluated = try stack.context.fetch(request).filter { predicate.evaluate(with: $0) }.map { $0.value(forKey: "value") as? String ?? "<nil>" }
            #expect(fetched.sorted() == evaluated.sorted())
        }
        let select = recorder.selects.first ?? ""
        if let sqlHas = row.sqlHas {
            #expect(select.contains(sqlHas), "\(select)")
            // A range answers alone; GLOB keeps the evaluator for the values it cannot judge.
            if sqlHas == ">=", !row.format.contains("MATCHES") { #expect(!select.contains(SQLPredicateFunctions.names.string), "\(select)") }
        }
    }

    @Test func patternsTranslate() {
        #expect(SQLLikePattern.literalPrefix("Item 1*") == "Item 1")
        #expect(SQLLikePattern.literalPrefix("*x") == nil)
        #expect(SQLLikePattern.glob("a[b]*c?\\*\\?") == "a[[]b]*c?[*][?]")
        #expect(SQLLikePattern.glob("x\u{0}") == nil)
        #expect(SQLLikePattern.regexLiteralPrefix("Item 1.*") == "Item 1")
        #expect(SQLLikePattern.regexLiteralPrefix("abc?") == "ab")
        #expect(SQLLikePattern.regexLiteralPrefix("Item+") == "Item")
        #expect(SQLLikePattern.regexLiteralPrefix("a|b") == nil)
        #expect(SQLLikePattern.regexLiteralPrefix(".*") == nil)
    }
}
