import Testing
@testable import OpenCoreData

/// One row of the table: a format string with its arguments, an object it holds for and one it
/// fails for (nil when no object can fail, as for TRUEPREDICATE).
struct EvaluationRow: @unchecked Sendable, CustomTestStringConvertible {
    // @unchecked Sendable: rows are immutable constants read by the tests.
    let format: String
    let arguments: [Any]
    let holds: Any
    let fails: Any?

    init(_ format: String, _ arguments: [Any] = [], holds: Any, fails: Any?) {
        self.format = format
        self.arguments = arguments
        self.holds = holds
        self.fails = fails
    }

    var testDescription: String { format }

    static let reference = Date(timeIntervalSinceReferenceDate: 100)
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    static let all: [EvaluationRow] = [
        // Comparison operators, in every spelling.
        EvaluationRow("count == 3", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count = 3.0", holds: ["count": 3], fails: ["count": 3.5]),
        EvaluationRow("count != 3", holds: ["count": 4], fails: ["count": 3]),
        EvaluationRow("count <> 3", holds: ["count": 4], fails: ["count": 3]),
        EvaluationRow("count < 3", holds: ["count": 2], fails: ["count": 3]),
        EvaluationRow("count <= 3", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count =< 3", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count > 3", holds: ["count": 3.5], fails: ["count": 3]),
        EvaluationRow("count >= 3", holds: ["count": 3], fails: ["count": 2]),
        EvaluationRow("count => 3", holds: ["count": 3], fails: ["count": 2]),
        EvaluationRow("count BETWEEN {1, 5}", holds: ["count": 5], fails: ["count": 6]),
        EvaluationRow("name IN {'a', 'b'}", holds: ["name": "b"], fails: ["name": "c"]),
        EvaluationRow("name IN %@", [["a", "b"]], holds: ["name": "a"], fails: ["name": "A"]),
        EvaluationRow("count IN %@", [Set([1, 2])], holds: ["count": 2], fails: ["count": 3]),
        EvaluationRow("name IN[c] {'a', 'b'}", holds: ["name": "B"], fails: ["name": "c"]),
        // String operators and their options.
        EvaluationRow("name BEGINSWITH 'It'", holds: ["name": "Item"], fails: ["name": "item"]),
        EvaluationRow("name BEGINSWITH[c] 'it'", holds: ["name": "ITEM"], fails: ["name": "Tim"]),
        EvaluationRow("name ENDSWITH 'em'", holds: ["name": "Item"], fails: ["name": "ItEM"]),
        EvaluationRow("name CONTAINS 'te'", holds: ["name": "Item"], fails: ["name": "ITEM"]),
        EvaluationRow("name ==[d] 'cafe'", holds: ["name": "café"], fails: ["name": "Café"]),
        EvaluationRow("name CONTAINS[cd] 'CAFE'", holds: ["name": "Un Café"], fails: ["name": "Un thé"]),
        EvaluationRow("name LIKE 'I*m'", holds: ["name": "Item"], fails: ["name": "Items"]),
        EvaluationRow("name LIKE 'It?m'", holds: ["name": "Item"], fails: ["name": "Iteem"]),
        EvaluationRow("name LIKE[c] 'it*'", holds: ["name": "ITEMS"], fails: ["name": "bit"]),
        EvaluationRow("name LIKE 'a\\\\*'", holds: ["name": "a*"], fails: ["name": "ab"]),
        EvaluationRow("name MATCHES '[A-Z][a-z]+'", holds: ["name": "Item"], fails: ["name": "Item2"]),
        EvaluationRow("name MATCHES[c] 'item'", holds: ["name": "ITEM"], fails: ["name": "items"]),
        // Logic and precedence.
        EvaluationRow("NOT count > 3", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("!(count > 3)", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count > 1 AND count < 5", holds: ["count": 2], fails: ["count": 5]),
        EvaluationRow("count > 1 && count < 5", holds: ["count": 2], fails: ["count": 1]),
        EvaluationRow("count < 1 OR count > 5", holds: ["count": 6], fails: ["count": 3]),
        EvaluationRow("count < 1 || count > 5", holds: ["count": 0], fails: ["count": 3]),
        EvaluationRow("count == 1 OR count == 2 AND done == YES", holds: ["count": 1, "done": false], fails: ["count": 2, "done": false]),
        EvaluationRow("NOT done == YES AND count == 1", holds: ["count": 1, "done": false], fails: ["count": 2, "done": false]),
        EvaluationRow("(count == 1 OR count == 2) AND done == YES", holds: ["count": 2, "done": true], fails: ["count": 1, "done": false]),
        EvaluationRow("TRUEPREDICATE", holds: ["count": 1], fails: nil),
        EvaluationRow("NOT FALSEPREDICATE", holds: [:] as [String: Any], fails: nil),
        // Literals.
        EvaluationRow("name == nil", holds: [:] as [String: Any], fails: ["name": "x"]),
        EvaluationRow("name == NULL", holds: ["name": NSNull()], fails: ["name": "x"]),
        EvaluationRow("name != nil", holds: ["name": "x"], fails: [:] as [String: Any]),
        EvaluationRow("done == YES", holds: ["done": true], fails: ["done": false]),
        EvaluationRow("done == NO", holds: ["done": NSNumber(value: false)], fails: ["done": true]),
        EvaluationRow("done == TRUE", holds: ["done": 1], fails: ["done": 0]),
        EvaluationRow("done = FALSE", holds: ["done": false], fails: [:] as [String: Any]),
        EvaluationRow("SELF == 'x'", holds: "x", fails: "y"),
        EvaluationRow("owner.name == 'Ann'", holds: ["owner": ["name": "Ann"]], fails: ["owner": ["name": "Bob"]]),
        EvaluationRow("count == 0x1F", holds: ["count": 31], fails: ["count": 30]),
        EvaluationRow("count == 0o17", holds: ["count": 15], fails: ["count": 17]),
        EvaluationRow("count == 0b101", holds: ["count": 5], fails: ["count": 101]),
        EvaluationRow("count == 1e3", holds: ["count": 1000], fails: ["count": 1]),
        EvaluationRow("count == 2.5E-1", holds: ["count": 0.25], fails: ["count": 2.5]),
        EvaluationRow("count == -3", holds: ["count": -3], fails: ["count": 3]),
        EvaluationRow("name == \"say \\\"hi\\\"\\n\"", holds: ["name": "say \"hi\"\n"], fails: ["name": "say hi"]),
        EvaluationRow("name == 'it\\'s'", holds: ["name": "it's"], fails: ["name": "its"]),
        EvaluationRow("#in == 1", holds: ["in": 1], fails: ["in": 2]),
        // Format specifiers.
        EvaluationRow("%K == %@", ["name", "x"], holds: ["name": "x"], fails: ["name": "y"]),
        EvaluationRow("%K.name == %@", ["owner", "Ann"], holds: ["owner": ["name": "Ann"]], fails: ["owner": [:] as [String: Any]]),
        EvaluationRow("count == %d", [3], holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count == %i", [Int32(3)], holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count == %ld", [3], holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count == %lld", [Int64(3)], holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count == %u", [UInt(3)], holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count == %f", [2.5], holds: ["count": 2.5], fails: ["count": 2]),
        EvaluationRow("count == %lf", [2.5], holds: ["count": 2.5], fails: ["count": 2]),
        EvaluationRow("name == %s", ["abc"], holds: ["name": "abc"], fails: ["name": "ab"]),
        EvaluationRow("name ENDSWITH %%", holds: ["name": "50%"], fails: ["name": "50"]),
        EvaluationRow("name == %@", [NSNull()], holds: [:] as [String: Any], fails: ["name": "x"]),
        EvaluationRow("count == %@", [NSNumber(value: 3)], holds: ["count": 3.0], fails: ["count": 4]),
        EvaluationRow("createdAt > %@", [reference], holds: ["createdAt": reference.addingTimeInterval(1)], fails: ["createdAt": reference]),
        EvaluationRow("blob == %@", [Data([1, 2])], holds: ["blob": Data([1, 2])], fails: ["blob": Data([2])]),
        EvaluationRow("id == %@", [uuid], holds: ["id": uuid], fails: ["id": UUID()]),
        // Modifiers over collections, collection operators, arithmetic.
        EvaluationRow("ANY tags == 'a'", holds: ["tags": ["a", "b"]], fails: ["tags": ["c"]]),
        EvaluationRow("SOME tags BEGINSWITH 'b'", holds: ["tags": ["a", "bc"]], fails: ["tags": ["a"]]),
        EvaluationRow("ALL tags BEGINSWITH 't'", holds: ["tags": ["ta", "tb"]], fails: ["tags": ["ta", "b"]]),
        EvaluationRow("NONE tags == 'a'", holds: ["tags": ["b"]], fails: ["tags": ["b", "a"]]),
        EvaluationRow("ANY items.price > 5", holds: ["items": [["price": 1], ["price": 9]]], fails: ["items": [["price": 1]]]),
        EvaluationRow("tags.@count == 2", holds: ["tags": ["a", "b"]], fails: ["tags": ["a"]]),
        EvaluationRow("items.@sum.price == 10", holds: ["items": [["price": 4], ["price": 6]]], fails: ["items": [["price": 4]]]),
        EvaluationRow("tags CONTAINS 'a'", holds: ["tags": Set(["a", "b"])], fails: ["tags": ["b"]]),
        EvaluationRow("count + 1 == 4", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count * 2 > 5 - 1", holds: ["count": 3], fails: ["count": 2]),
        EvaluationRow("count ** 2 == 9", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count / 2 == 1.5", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("-count == -3", holds: ["count": 3], fails: ["count": -3]),
        EvaluationRow("ALL items.price > 0", holds: ["items": [["price": 1], ["price": 2]]], fails: ["items": [["price": 1], ["price": 0]]]),
        EvaluationRow("NONE items.price < 0", holds: ["items": [["price": 1]]], fails: ["items": [["price": -1]]]),
        EvaluationRow("items.@avg.price == 5", holds: ["items": [["price": 4], ["price": 6]]], fails: ["items": [["price": 4]]]),
        EvaluationRow("items.@min.price == 1", holds: ["items": [["price": 1], ["price": 9]]], fails: ["items": [["price": 2], ["price": 9]]]),
        EvaluationRow("items.@max.price == 9", holds: ["items": [["price": 1], ["price": 9]]], fails: ["items": [["price": 1]]]),
        EvaluationRow("{1, 2, 3} CONTAINS count", holds: ["count": 2], fails: ["count": 4]),
        EvaluationRow("name BETWEEN {'a', 'c'}", holds: ["name": "b"], fails: ["name": "d"]),
        // SUBQUERY and iterator variables.
        EvaluationRow("SUBQUERY(items, $x, $x.price > 5).@count == 1", holds: ["items": [["price": 1], ["price": 9]]], fails: ["items": [["price": 1]]]),
        EvaluationRow("SUBQUERY(items, $x, price > 5).@count == 0", holds: ["items": [["price": 1]]], fails: ["items": [["price": 9]]]),
        EvaluationRow("SUBQUERY(tags, $t, $t BEGINSWITH 'a')[SIZE] == 2", holds: ["tags": ["ab", "ac", "b"]], fails: ["tags": ["ab"]]),
        EvaluationRow(
            "ANY SUBQUERY(items, $x, $x.price > 5).name == 'big'", holds: ["items": [["price": 9, "name": "big"]]],
            fails: ["items": [["price": 1, "name": "big"]]]),
        EvaluationRow(
            "SUBQUERY(items, $x, SUBQUERY($x.parts, $p, $p > 2).@count > 0).@count == 1", holds: ["items": [["parts": [1, 3]], ["parts": [1]]]],
            fails: ["items": [["parts": [1]]]]),
        // FUNCTION and TERNARY.
        EvaluationRow("FUNCTION(name, 'uppercaseString') == 'ITEM'", holds: ["name": "item"], fails: ["name": "x"]),
        EvaluationRow("FUNCTION(name, 'length') == 4", holds: ["name": "item"], fails: ["name": "items"]),
        EvaluationRow("FUNCTION(name, 'stringByAppendingString:', 's') == 'items'", holds: ["name": "item"], fails: ["name": "it"]),
        EvaluationRow("FUNCTION(SELF, 'lowercaseString') == 'ab'", holds: "AB", fails: "AC"),
        EvaluationRow("TERNARY(count > 3, 'big', 'small') == 'big'", holds: ["count": 5], fails: ["count": 1]),
        EvaluationRow("TERNARY(name == nil, 0, count) == 2", holds: ["name": "x", "count": 2], fails: ["count": 2]),
        // Index expressions.
        EvaluationRow("tags[FIRST] == 'a'", holds: ["tags": ["a", "b"]], fails: ["tags": ["b", "a"]]),
        EvaluationRow("tags[LAST] == 'b'", holds: ["tags": ["a", "b"]], fails: ["tags": ["b", "a"]]),
        EvaluationRow("tags[SIZE] == 2", holds: ["tags": ["a", "b"]], fails: ["tags": ["a"]]),
        EvaluationRow("tags[1] == 'b'", holds: ["tags": ["a", "b"]], fails: ["tags": ["b", "a"]]),
        EvaluationRow("tags[count - 1] == 'b'", holds: ["tags": ["a", "b"], "count": 2], fails: ["tags": ["a", "b"], "count": 1]),
        EvaluationRow("info['color'] == 'red'", holds: ["info": ["color": "red"]], fails: ["info": ["color": "blue"]]),
        EvaluationRow("tags[5] == nil", holds: ["tags": ["a"]], fails: ["tags": ["a", "b", "c", "d", "e", "f"]]),
        // Key-value coding collection operators.
        EvaluationRow(
            "items.@distinctUnionOfObjects.name[SIZE] == 2", holds: ["items": [["name": "a"], ["name": "a"], ["name": "b"]]],
            fails: ["items": [["name": "a"], ["name": "a"]]]),
        EvaluationRow(
            "items.@unionOfObjects.name[SIZE] == 3", holds: ["items": [["name": "a"], ["name": "a"], ["name": "b"]]],
            fails: ["items": [["name": "a"], ["name": "b"], ["other": "c"]]]),
        EvaluationRow(
            "lists.@unionOfArrays.name[SIZE] == 3", holds: ["lists": [[["name": "a"]], [["name": "a"], ["name": "b"]]]],
            fails: ["lists": [[["name": "a"]], [["name": "b"]]]]),
        EvaluationRow(
            "lists.@distinctUnionOfArrays.name[SIZE] == 2", holds: ["lists": [[["name": "a"]], [["name": "a"], ["name": "b"]]]],
            fails: ["lists": [[["name": "a"]], [["name": "c"]], [["name": "b"]]]]),
        EvaluationRow(
            "ANY lists.@distinctUnionOfSets.name == 'b'", holds: ["lists": [Set(["x"]), Set(["b"])].map { $0.map { ["name": $0] } }],
            fails: ["lists": [[["name": "a"]]]]),
        // CAST.
        EvaluationRow("CAST(count, 'NSString') == '3'", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("CAST(code, 'NSNumber') > 10", holds: ["code": "42"], fails: ["code": "7"]),
        EvaluationRow("CAST(seconds, 'NSDate') > CAST(100, 'NSDate')", holds: ["seconds": 200], fails: ["seconds": 50]),
        EvaluationRow("CAST('3', 'NSNumber') == count", holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("createdAt < CAST(200.5, \"NSDate\")", holds: ["createdAt": reference], fails: ["createdAt": reference.addingTimeInterval(500)]),
        // [n] and its combinations.
        EvaluationRow("name ==[n] 'Item'", holds: ["name": "Item"], fails: ["name": "item"]),
        EvaluationRow("name CONTAINS[cdn] 'ITE'", holds: ["name": "ítem"], fails: ["name": "x"]),
        // Built-in functions.
        EvaluationRow("abs(delta) == 3", holds: ["delta": -3], fails: ["delta": 2]),
        EvaluationRow("sqrt(area) == 3", holds: ["area": 9], fails: ["area": 8]),
        EvaluationRow("floor(price) == 2", holds: ["price": 2.7], fails: ["price": 3.1]),
        EvaluationRow("ceiling(price) == 3", holds: ["price": 2.1], fails: ["price": 3.5]),
        EvaluationRow("trunc(price) == -2", holds: ["price": -2.7], fails: ["price": -3.1]),
        EvaluationRow("uppercase(name) == 'ABC'", holds: ["name": "abc"], fails: ["name": "abd"]),
        EvaluationRow("lowercase(name) == 'abc'", holds: ["name": "ABC"], fails: ["name": "ABD"]),
        // The selector form of NSExpression's description and of Xcode's derivations.
        EvaluationRow("canonical:(name) == 'creme'", holds: ["name": "Crème"], fails: ["name": "Cream"]),
        EvaluationRow("uppercase:(name) == 'CRÈME'", holds: ["name": "crème"], fails: ["name": "creme"]),
        EvaluationRow("add:to:(count, 2) == 5", holds: ["count": 3], fails: ["count": 2]),
        EvaluationRow("sum(items.price) == 10", holds: ["items": [["price": 4], ["price": 6]]], fails: ["items": [["price": 4]]]),
        EvaluationRow("average(items.price) == 5", holds: ["items": [["price": 4], ["price": 6]]], fails: ["items": [["price": 4]]]),
        EvaluationRow("min(items.price) == 1", holds: ["items": [["price": 1], ["price": 9]]], fails: ["items": [["price": 2]]]),
        EvaluationRow("max(items.price) == 9", holds: ["items": [["price": 1], ["price": 9]]], fails: ["items": [["price": 1]]]),
        EvaluationRow("count(tags) == 2", holds: ["tags": ["a", "b"]], fails: ["tags": ["a"]]),
        EvaluationRow("median(values) == 2", holds: ["values": [1, 2, 9]], fails: ["values": [1, 5, 9]]),
        EvaluationRow("stddev(values) == 1", holds: ["values": [1, 3]], fails: ["values": [2, 2]]),
        EvaluationRow("ln(value) > 0", holds: ["value": 3], fails: ["value": 0.5]),
        EvaluationRow("log(value) == 2", holds: ["value": 100], fails: ["value": 10]),
        EvaluationRow("exp(value) > 2", holds: ["value": 1], fails: ["value": 0]),
        EvaluationRow("length(name) == 3", holds: ["name": "abc"], fails: ["name": "ab"]),
        EvaluationRow("now() > %@", [reference], holds: [:] as [String: Any], fails: nil),
        // More format specifiers.
        EvaluationRow("count == %lu", [UInt(3)], holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count == %hd", [Int16(3)], holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count == %llu", [UInt64(3)], holds: ["count": 3], fails: ["count": 4]),
        EvaluationRow("count == %e", [2.5], holds: ["count": 2.5], fails: ["count": 2]),
        EvaluationRow("%K BEGINSWITH %@", ["name", "It"], holds: ["name": "Item"], fails: ["name": "item"]),
        EvaluationRow("%K.@count == %d", ["tags", 2], holds: ["tags": ["a", "b"]], fails: ["tags": ["a"]]),
    ]
}

@Suite struct PredicateEvaluationTests {
    @Test(arguments: EvaluationRow.all)
    func parsesAndEvaluates(_ row: EvaluationRow) throws {
        let predicate = try NSPredicate(validatingFormat: row.format, argumentArray: row.arguments)
        #expect(predicate.evaluate(with: row.holds), "\(row.format) should hold for \(row.holds)")
        if let fails = row.fails {
            #expect(!predicate.evaluate(with: fails), "\(row.format) should fail for \(fails)")
        }
    }

    @Test func orderingWithNilIsFalseBothWays() {
        for format in ["count < 3", "count > 3", "count <= 3", "count >= 3", "count BETWEEN {1, 5}"] {
            let predicate = NSPredicate(format: format)
            #expect(!predicate.evaluate(with: [:] as [String: Any]), "\(format)")
            #expect(NSPredicate(format: "NOT (\(format))").evaluate(with: [:] as [String: Any]), "NOT \(format)")
        }
        #expect(!NSPredicate(format: "count > nil").evaluate(with: ["count": 1]))
    }

    @Test func variadicArgumentsOfEveryKind() {
        let start = Date(timeIntervalSinceReferenceDate: 0)
        #expect(NSPredicate(format: "name == %@ AND count > %d", "x", 2).evaluate(with: ["name": "x", "count": 3]))
        #expect(NSPredicate(format: "createdAt > %@ AND id != %@", start, UUID()).evaluate(with: ["createdAt": Date(), "id": UUID()]))
        #expect(NSPredicate(format: "owner == %@", nil).evaluate(with: [:] as [String: Any]))
    }

    @Test func substitutionVariables() {
        let template = NSPredicate(format: "count > $minimum AND name IN $names")
        let predicate = template.withSubstitutionVariables(["minimum": 3, "names": ["a", "b"]])
        #expect(predicate.evaluate(with: ["count": 4, "name": "a"]))
        #expect(!predicate.evaluate(with: ["count": 3, "name": "a"]))
        #expect(predicate.predicateFormat == "count > 3 AND name IN {\"a\", \"b\"}")
        #expect(template.evaluate(with: ["count": 4, "name": "b"], substitutionVariables: ["minimum": 1, "names": ["b"]]))
        #expect(!template.evaluate(with: ["count": 4, "name": "b"], substitutionVariables: ["minimum": 5, "names": ["b"]]))
    }

    @Test func objectModelBuiltByHand() {
        let predicate = NSComparisonPredicate(
            leftExpression: NSExpression(forKeyPath: "name"), rightExpression: NSExpression(forConstantValue: "it"),
            modifier: .direct, type: .beginsWith, options: [.caseInsensitive])
        #expect(predicate.evaluate(with: ["name": "Item"]))
        #expect(predicate.predicateFormat == "name BEGINSWITH[c] \"it\"")
        #expect(predicate.predicateOperatorType.rawValue == 8)
        #expect(NSComparisonPredicate.Operator.between.rawValue == 100)
        #expect(NSComparisonPredicate.Operator.contains.rawValue == 99)
        #expect(NSComparisonPredicate.Modifier.any.rawValue == 2)
        #expect(NSComparisonPredicate.Options.diacriticInsensitive.rawValue == 2)
        #expect(NSExpression.ExpressionType.aggregate.rawValue == 14)
        let parsed = NSPredicate(format: "name BEGINSWITH[c] 'it'") as? NSComparisonPredicate
        #expect(parsed?.leftExpression.keyPath == "name")
        #expect(parsed?.rightExpression.constantValue as? String == "it")
        #expect(parsed?.options == .caseInsensitive)
        #expect(parsed?.isEqual(predicate) == true)
        #expect(parsed?.hash == predicate.hash)
        let variable = NSExpression(forVariable: "x")
        #expect(variable.expressionType == .variable && variable.variable == "x")
        #expect(NSExpression.expressionForEvaluatedObject().expressionValue(with: 5, context: nil) as? Int == 5)
        #expect(NSExpression(forKeyPath: "a.b").expressionValue(with: ["a": ["b": 2]], context: nil) as? Int == 2)
        #expect(NSExpression(format: "count * 2").expressionValue(with: ["count": 4], context: nil) as? NSNumber == 8)
    }

    @Test func compoundPredicatesOfFoundationEvaluateOurs() {
        let compound = NSCompoundPredicate(andPredicateWithSubpredicates: [
            NSPredicate(format: "count > 1"), NSPredicate(format: "name BEGINSWITH 'a'"),
        ])
        #expect(compound.evaluate(with: ["count": 2, "name": "ab"]))
        #expect(!compound.evaluate(with: ["count": 2, "name": "b"]))
        #expect(compound.predicateFormat == "count > 1 AND name BEGINSWITH \"a\"")
    }
}
