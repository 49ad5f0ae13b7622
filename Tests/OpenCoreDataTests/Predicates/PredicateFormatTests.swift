import Testing
@testable import OpenCoreData

@Suite struct PredicateFormatTests {
    /// Format strings and the canonical form Apple prints for them.
    static let canonical: [(String, String)] = [
        ("name = 'x'", "name == \"x\""),
        ("1 << 3 == 8", "1 << 3 == 8"),
        ("1|2&3 == 3", "1 | (2 & 3) == 3"),
        ("(1 | 2) << 1 == 6", "(1 | 2) << 1 == 6"),
        ("mask & (1 << bit) != 0", "mask & (1 << bit) != 0"),
        ("~ -1 == 0", "~(-1) == 0"),
        ("a ^ b >> 2 == 1", "a ^ (b >> 2) == 1"),
        ("count =< 3", "count <= 3"),
        ("count => 3.5", "count >= 3.5"),
        ("count <> 3", "count != 3"),
        ("name beginswith[cd] 'é'", "name BEGINSWITH[cd] \"é\""),
        ("name like[c] 'a*'", "name LIKE[c] \"a*\""),
        ("name matches '.*'", "name MATCHES \".*\""),
        ("count between {1, 2}", "count BETWEEN {1, 2}"),
        ("name in {'a', \"b\"}", "name IN {\"a\", \"b\"}"),
        ("a == 1 && b == 2 || c == 3", "(a == 1 AND b == 2) OR c == 3"),
        ("a == 1 AND (b == 2 OR c == 3)", "a == 1 AND (b == 2 OR c == 3)"),
        ("!(a == 1)", "NOT a == 1"),
        ("NOT (a == 1 AND b == 2)", "NOT (a == 1 AND b == 2)"),
        ("any tags.name == 'x'", "ANY tags.name == \"x\""),
        ("all tags.name == 'x'", "ALL tags.name == \"x\""),
        ("none tags.name == 'x'", "NOT ANY tags.name == \"x\""),
        ("name == nil", "name == nil"),
        ("done == YES", "done == 1"),
        ("SELF == $x", "SELF == $x"),
        ("#not == 'quote\"'", "#not == \"quote\\\"\""),
        ("count + 1 > 2 * 3", "count + 1 > 2 * 3"),
        ("(count + 1) * 2 > 3", "(count + 1) * 2 > 3"),
        ("tags.@count > 0", "tags.@count > 0"),
        ("SUBQUERY(items, $x, $x.price > 5 OR price < 1).@count > 0", "SUBQUERY(items, $x, $x.price > 5 OR price < 1).@count > 0"),
        ("tags[first] == 'a'", "tags[FIRST] == \"a\""),
        ("tags[size] > 1", "tags[SIZE] > 1"),
        ("tags[1] == 'b'", "tags[1] == \"b\""),
        ("info['key'] == 1", "info[\"key\"] == 1"),
        ("(a + 1)[0] == 1", "(a + 1)[0] == 1"),
        ("FUNCTION(name, 'uppercaseString') == 'A'", "FUNCTION(name, \"uppercaseString\") == \"A\""),
        ("TERNARY(a > 1, 'x', 'y') == 'x'", "TERNARY(a > 1, \"x\", \"y\") == \"x\""),
        ("CAST(count, 'NSString') == '1'", "CAST(count, \"NSString\") == \"1\""),
        ("items.@distinctUnionOfObjects.name CONTAINS 'a'", "items.@distinctUnionOfObjects.name CONTAINS \"a\""),
        ("name ==[cdn] 'a'", "name ==[cdn] \"a\""),
        ("median(values) > stddev(values)", "median(values) > stddev(values)"),
        ("TRUEPREDICATE", "TRUEPREDICATE"),
        ("FALSEPREDICATE", "FALSEPREDICATE"),
    ]

    @Test(arguments: canonical.map { [$0.0, $0.1] })
    func printsCanonicalFormAndParsesBack(_ pair: [String]) throws {
        let predicate = try NSPredicate(validatingFormat: pair[0])
        #expect(predicate.predicateFormat == pair[1])
        let again = try NSPredicate(validatingFormat: predicate.predicateFormat)
        #expect(PredicateEquality.isEqual(again, predicate), "\(pair[1]) parses back to an equal predicate")
        #expect(again.predicateFormat == pair[1])
        #expect(PredicateEquality.hash(again) == PredicateEquality.hash(predicate))
    }

    @Test func argumentsRoundTrip() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123.5)
        let uuid = UUID()
        let predicate = NSPredicate(
            format: "createdAt > %@ AND id == %@ AND name IN %@ AND count == %f AND label == %@",
            date, uuid, ["a", "b"], 2.5, "semi;colon 'quote'")
        let printed = predicate.predicateFormat
        #expect(printed.contains("CAST(123.5, \"NSDate\")"))
        let again = try NSPredicate(validatingFormat: printed)
        #expect(again.isEqual(predicate))
        #expect(predicate.isEqual(again))
        #expect(again.predicateFormat == printed)
    }

    /// Constants without a literal in Apple's format printed as `3 bytes` or Foundation's
    /// description (issue 20: 893 printed predicates did not parse back); now as casts and a
    /// dictionary literal that read back equal.
    @Test func constantsWithoutALiteralRoundTrip() throws {
        let data = Data([0, 1, 2, 255])
        let decimal = Decimal(string: "12345678901234567890.123456789")!
        let dictionary: [String: Any] = ["count": 3, "name": "x", "none": NSNull()]
        let predicate = NSPredicate(format: "photo == %@ AND price == %@ AND info == %@", data, decimal as NSDecimalNumber, dictionary)
        let printed = predicate.predicateFormat
        #expect(printed.contains("CAST(\"AAEC/w==\", \"NSData\")"), "\(printed)")
        #expect(printed.contains("CAST(\"12345678901234567890.123456789\", \"NSDecimalNumber\")"), "\(printed)")
        #expect(printed.contains("{\"count\": 3, \"name\": \"x\", \"none\": nil}"), "\(printed)")
        let again = try NSPredicate(validatingFormat: printed)
        #expect(again.isEqual(predicate))
        #expect(again.predicateFormat == printed)
        #expect(again.evaluate(with: ["photo": data, "price": decimal as NSDecimalNumber, "info": dictionary]))
        // NaN has no literal and equals nothing, itself included; it still reads back as NaN.
        let nan = NSPredicate(format: "ratio == %@", NSNumber(value: Double.nan))
        let nanAgain = try NSPredicate(validatingFormat: nan.predicateFormat)
        #expect(nanAgain.predicateFormat == nan.predicateFormat)
        #expect(nan.predicateFormat.contains("CAST(\"nan\", \"NSNumber\")"))
    }

    @Test func foundationPredicatesPrint() {
        #expect(NSPredicate(value: true).predicateFormat == "TRUEPREDICATE")
        #expect(NSPredicate(value: false).predicateFormat == "FALSEPREDICATE")
        #expect(NSPredicate { _, _ in true }.predicateFormat == "BLOCKPREDICATE")
        let or = NSCompoundPredicate(orPredicateWithSubpredicates: [NSPredicate(value: true), NSPredicate(format: "a == 1 AND b == 2")])
        #expect(or.predicateFormat == "TRUEPREDICATE OR (a == 1 AND b == 2)")
        #expect(NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "a == 1")).predicateFormat == "NOT a == 1")
        #expect("\(NSPredicate(format: "a == 'b'"))" == "a == \"b\"")
    }

    @Test func equalityIsStructural() {
        #expect(NSPredicate(format: "a == 1 AND b == 2").isEqual(NSPredicate(format: "a = 1 && b = 2")))
        #expect(!NSPredicate(format: "a == 1 AND b == 2").isEqual(NSPredicate(format: "a == 1 OR b == 2")))
        #expect(!NSPredicate(format: "a == 1 AND b == 2").isEqual(NSPredicate(value: false)))
        #expect(!NSPredicate(format: "a == 1").isEqual(NSPredicate(value: false)))
        #expect(!NSPredicate(value: false).isEqual(NSPredicate(format: "a == 1")))
        #expect(NSPredicate(format: "a == 1").isEqual(NSPredicate(format: "a == 1.0")))
        let compound = NSPredicate(format: "a == 1 OR b == 2")
        #expect((compound.copy() as? NSPredicate)?.isEqual(compound) == true)
    }
}
