import Testing
@testable import OpenCoreData

@Suite struct PredicateParseErrorTests {
    /// Malformed format strings, their arguments, and the offset the error must name.
    static let malformed: [(format: String, arguments: [String], offset: Int)] = [
        ("", [], 0),
        ("name ==", [], 7),
        ("== 3", [], 0),
        ("name == 'abc", [], 8),
        ("name BEGINSWITH[x] 'a'", [], 16),
        ("(name == 'a'", [], 12),
        ("name == 'a' AND", [], 15),
        ("name == 'a' count == 2", [], 12),
        ("count > 0x", [], 8),
        ("count > 1e", [], 8),
        ("count > %d", [], 8),
        ("count > 12abc", [], 10),
        ("name IN {1, 2", [], 13),
        ("name == $", [], 8),
        ("owner.AND == 1", [], 6),
        ("name ~ 'a'", [], 5),
        ("name == 'a' ||", [], 14),
        ("NOT", [], 3),
        ("count > %q", [], 8),
        ("name == 'bad \\u12'", [], 13),
        ("SUBQUERY(items, x, x.a == 1).@count > 0", [], 16),
        ("SUBQUERY(items, $x $x.a == 1).@count > 0", [], 19),
        ("name[FIRST]] == 'a'", [], 11),
        ("name IN", [], 7),
        ("name == 'a')", [], 11),
        ("FUNCTION(name) == 1", [], 13),
        ("FUNCTION(name, uppercaseString) == 1", [], 15),
        ("TERNARY(count > 1, 'a') == 'a'", [], 22),
        ("TERNARY(count, 'a', 'b') == 'a'", [], 13),
        ("tags[] == 1", [], 5),
        ("tags[FIRST == 'a'", [], 11),
        ("CAST(name) == 1", [], 9),
        ("CAST(name, 'NSWidget') == 1", [], 0),
        ("SUBQUERY(items, $x) == 1", [], 18),
        ("$x := 3", [], 3),
        ("ANYKEY == 1", [], 0),
        ("name == 'a' AND (", [], 17),
        ("count > 1 +", [], 11),
        ("name CONTAINS[cx] 'a'", [], 14),
        ("nosuchfunction(name) == 1", [], 0),
    ]

    @Test(arguments: 0..<malformed.count)
    func refusedWithPosition(_ index: Int) {
        let (format, arguments, offset) = Self.malformed[index]
        do {
            _ = try NSPredicate(validatingFormat: format, argumentArray: arguments)
            Issue.record("'\(format)' parsed")
        } catch {
            let error = error as NSError
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSFormattingError)
            #expect(error.userInfo[PredicateFormatErrorOffsetKey] as? Int == offset, "'\(format)': \(error.localizedDescription)")
            #expect(error.localizedDescription.contains("at offset \(offset)"))
            #expect(error.localizedDescription.contains("expected") || error.localizedDescription.contains("unexpected") || error.localizedDescription.contains("not supported"))
        }
    }

    @Test func keyPathArgumentMustBeAString() {
        #expect(throws: (any Error).self) { try NSPredicate(validatingFormat: "%K == 1", argumentArray: [5]) }
    }
}
