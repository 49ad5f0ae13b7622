import Foundation
import Testing

@testable import OpenCoreData

/// Predicates that Apple's Foundation answers, found by running other projects' tests (swift-
/// foundation's, Realm's NSPredicate compatibility tests): OpenCoreData answers them the same.
@Suite struct FoundationAnswersTests {
    private func holds(_ format: String, _ object: Any? = nil) throws -> Bool {
        try NSPredicate(validatingFormat: format, argumentArray: []).evaluate(with: object)
    }

    /// Bitwise operators are functions of 64-bit integers, bound as C binds them (their printed
    /// form is in `PredicateFormatTests`).
    @Test(arguments: [
        "1 << 3 == 8", "64 >> 2 == 16", "1 & 0 == 0", "6 & 3 == 2", "1 | 0 == 1", "1 ^ 0 == 1", "5 ^ 1 == 4",
        "~1 == -2", "~~7 == 7", "1 | 2 & 3 == 3", "1 + 1 << 2 == 8", "1 << 1 + 1 == 4", "(1 | 2) << 1 == 6",
        "3 ^ 1 | 4 == 6", "-1 >> 60 == -1", "1 & 0 == 0 && 1 | 0 == 1",
    ])
    func bitwiseOperatorsEvaluateAsInC(_ format: String) throws {
        #expect(try holds(format))
    }

    @Test func bitwiseOperatorsReadKeyPaths() throws {
        let flags: [String: Any] = ["mask": 0b1010, "bit": 3]
        #expect(try holds("mask & (1 << bit) != 0", flags))
        #expect(try !holds("mask & (1 << 2) != 0", flags))
        #expect(try holds("(mask | 1) ^ mask == 1", flags))
    }

    /// NSString's `hasPrefix:` "returns NO if aString is empty", and `rangeOfString:` finds no
    /// empty string: BEGINSWITH, ENDSWITH and CONTAINS with '' are false, with or without
    /// folding, whatever the text; LIKE '' still matches the empty string.
    @Test(arguments: ["BEGINSWITH", "ENDSWITH", "CONTAINS", "BEGINSWITH[c]", "ENDSWITH[d]", "CONTAINS[cd]"])
    func theEmptyStringBeginsEndsAndIsInNoString(_ operation: String) throws {
        for text in ["abc", "", "É"] {
            #expect(try !holds("name \(operation) ''", ["name": text]), "\(text.debugDescription) \(operation) ''")
            #expect(try holds("NOT (name \(operation) '')", ["name": text]))
        }
        #expect(try holds("name LIKE ''", ["name": ""]))
        #expect(try !holds("name IN 'abc'", ["name": ""]))
    }

    /// A string's `length` is an `NSString`'s, in UTF-16 code units; `description` is the
    /// string; both at the end of key paths and after other expressions.
    @Test func stringsAnswerLengthAndDescription() throws {
        let person: [String: Any] = ["a": ["firstName": "Bob"], "b": "hello", "emoji": "a😀", "n": 42]
        #expect(try holds("b.length == 5", person))
        #expect(try holds("a.firstName.length == 3", person))
        #expect(try holds("emoji.length == 3", person))
        #expect(try holds("TERNARY(j != NULL, j, '').length == 0", person))
        #expect(try holds("TERNARY(b != NULL, b, '').length == 5", person))
        #expect(try holds("b.description == 'hello'", person))
        #expect(try holds("n.description == '42'", person))
        #expect(try holds("missing.length == nil", person))
    }

    /// `length` in SQL counts what memory counts: a character outside the Basic Multilingual
    /// Plane twice, a NUL character once.
    @Test func theSQLiteStoreCountsLengthInUTF16Units() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        let names = ["😀", "ab", "é", "a\u{0}b", "", "e\u{301}"]
        try stack.context.performAndWait {
            for name in names {
                NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue(name, forKey: "name")
            }
            try stack.context.save()
            stack.context.reset()
            for length in 0...3 {
                let predicate = try NSPredicate(validatingFormat: "name.length == %d", argumentArray: [length])
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.predicate = predicate
                let fetched = Set(try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String })
                let expected = Set(names.filter { ($0 as NSString).length == length })
                #expect(fetched == expected, "length \(length)")
                #expect(expected == Set(names.filter { predicate.evaluate(with: ["name": $0]) }))
            }
        }
    }

    /// A variable after a key path's dot is the key path, given at evaluation: Foundation sends
    /// `valueForKeyPath:` with the variable's value (`$a.$b` reads `$b` of `$a`). It prints as
    /// written, and once substituted it is an ordinary key path that a store can fetch by.
    @Test func aVariableAfterADotIsTheKeyPathItHolds() throws {
        let person: [String: Any] = ["address": ["city": "Oslo", "zip": 150], "name": "Ann"]
        let variables: [String: Any] = ["who": person, "key": "name", "path": "address.city"]
        func holds(_ format: String) throws -> Bool {
            try NSPredicate(validatingFormat: format, argumentArray: []).evaluate(with: person, substitutionVariables: variables)
        }
        #expect(try holds("$who.$key == 'Ann'"))
        #expect(try holds("$who.$path == 'Oslo'"))
        #expect(try holds("address.$key == nil"))
        #expect(try holds("SELF.$path == 'Oslo'"))
        #expect(try holds("$who.address.$key == nil AND $who.$path.length == 4"))
        #expect(try !holds("$who.$key == 'Bob'"))
        let predicate = try NSPredicate(validatingFormat: "$who.$key == 'Ann' AND address.$field > 100", argumentArray: [])
        #expect(predicate.description == "$who.$key == \"Ann\" AND address.$field > 100")
        #expect(try NSPredicate(validatingFormat: predicate.description, argumentArray: []) == predicate)
        let substituted = predicate.withSubstitutionVariables(["who": person, "key": "name", "field": "zip"])
        #expect(substituted.description == "\"Ann\" == \"Ann\" AND address.zip > 100")
    }

    /// Substituted, `key.$name` is the key path a store fetches by.
    @Test func aSubstitutedKeyPathVariableFetches() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        try stack.context.performAndWait {
            for name in ["milk", "eggs"] {
                NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context).setValue(name, forKey: "name")
            }
            try stack.context.save()
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.predicate = try NSPredicate(validatingFormat: "SELF.$key == 'milk'", argumentArray: []).withSubstitutionVariables(["key": "name"])
            #expect(try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String } == ["milk"])
        }
    }

    /// Core Data import loops wrap each batch in `autoreleasepool`; it runs the body and hands
    /// back its result or error.
    @Test func autoreleasepoolRunsItsBody() throws {
        struct Failed: Error {}
        #expect(autoreleasepool { 1 + 1 } == 2)
        #expect(throws: Failed.self) { try autoreleasepool { throw Failed() } }
    }
}
