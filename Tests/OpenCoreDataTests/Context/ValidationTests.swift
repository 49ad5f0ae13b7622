import Testing
@testable import OpenCoreData

@Suite struct ValidationTests {
    private func makeBook(_ context: NSManagedObjectContext, title: String?, pages: Int? = 10, isbn: String? = nil) -> NSManagedObject {
        let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
        book.setValue(title, forKey: "title")
        book.setValue(pages, forKey: "pages")
        book.setValue(isbn, forKey: "isbn")
        return book
    }

    @Test func missingMandatoryValueFailsWith1570AndNamesTheKey() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let book = makeBook(stack.context, title: nil)
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSValidationMissingMandatoryPropertyError)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "title")
            #expect((error.userInfo[NSValidationObjectErrorKey] as? NSManagedObject) === book)
            #expect(book.isInserted && book.objectID.isTemporaryID)
        }
    }

    @Test func boundsAndLengthsUseCoreDataCodes() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            _ = makeBook(stack.context, title: String(repeating: "x", count: 41))
            var error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSValidationStringTooLongError)
            stack.context.rollback()

            _ = makeBook(stack.context, title: "ok", pages: 0)
            error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSValidationNumberTooSmallError)
            stack.context.rollback()

            _ = makeBook(stack.context, title: "ok", pages: 6000)
            error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSValidationNumberTooLargeError)
        }
    }

    @Test func severalFailuresBecomeOneMultipleErrorsError() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            _ = makeBook(stack.context, title: nil)
            _ = makeBook(stack.context, title: "ok", pages: 0)
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSValidationMultipleErrorsError)
            let detailed = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
            #expect(Set(detailed.map(\.code)) == [NSValidationMissingMandatoryPropertyError, NSValidationNumberTooSmallError])
        }
    }

    @Test func wrongTypedValueIsRefusedAtSaveNamingEntityAndKey() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let book = makeBook(stack.context, title: "ok")
            book.setValue("many", forKey: "pages")
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSManagedObjectValidationError)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "pages")
            #expect(error.localizedDescription.contains("Book"))
        }
    }

    @Test func refusedSaveLeavesStoreAndContextAsTheyWere() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let saved = makeBook(stack.context, title: "Saved", isbn: "1")
            try stack.context.save()
            let before = try StoreSnapshot.rows(of: stack.url)

            saved.setValue("Renamed", forKey: "title")
            let bad = makeBook(stack.context, title: nil)
            #expect(throws: NSError.self) { try stack.context.save() }

            #expect(try StoreSnapshot.rows(of: stack.url) == before)
            #expect(saved.value(forKey: "title") as? String == "Renamed")
            #expect(saved.isUpdated)
            #expect(bad.isInserted)
            #expect(stack.context.insertedObjects.count == 1)
        }
    }

    @Test func validationPredicatesFailWith1550AndTheirWarning() throws {
        let model = TestModels.todo()
        let name = model.entities[0].attributesByName["name"]!
        name.setValidationPredicates([NSPredicate(format: "SELF BEGINSWITH 'Item'")], withValidationWarnings: ["must start with Item"])
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory)
        try stack.context.performAndWait {
            let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
            item.setValue("Groceries", forKey: "name")
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSManagedObjectValidationError)
            #expect(error.localizedDescription.contains("must start with Item"))
            item.setValue("Item 1", forKey: "name")
            try stack.context.save()
        }
    }

    /// A relationship's validation predicates are evaluated at save with its value as `SELF`: a
    /// to-one's object, a to-many's objects. A failure is 1550 with the warning, the key and the
    /// predicate, as for an attribute; an empty optional relationship is not asked.
    @Test func relationshipValidationPredicatesFailWith1550AndTheirWarning() throws {
        let model = TestModels.library()
        let book = model.entitiesByName["Book"]!
        let tagsRule = NSPredicate(format: "@count <= 2")
        book.relationshipsByName["tags"]!.setValidationPredicates([tagsRule], withValidationWarnings: ["at most two tags"])
        book.relationshipsByName["author"]!.setValidationPredicates([NSPredicate(format: "name != nil")], withValidationWarnings: ["an author with a name"])
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory)
        try stack.context.performAndWait {
            let novel = makeBook(stack.context, title: "Dune")
            // Neither an author nor tags: nothing to ask.
            try stack.context.save()
            let tags = (0..<3).map { index in
                let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: stack.context)
                tag.setValue("tag \(index)", forKey: "label")
                return tag
            }
            novel.setValue(Set(tags), forKey: "tags")
            let tooMany = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(tooMany.code == NSManagedObjectValidationError)
            #expect(tooMany.userInfo[NSValidationKeyErrorKey] as? String == "tags")
            #expect(tooMany.localizedDescription.contains("at most two tags"))
            #expect(tooMany.userInfo[NSValidationPredicateErrorKey] as? NSPredicate == tagsRule)
            var three: Any? = Set(tags)
            #expect(throws: NSError.self) { try novel.validateValue(&three, forKey: "tags") }
            novel.setValue(Set(tags.prefix(2)), forKey: "tags")
            stack.context.delete(tags[2])

            let author = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
            novel.setValue(author, forKey: "author")
            let nameless = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(nameless.code == NSManagedObjectValidationError)
            #expect(nameless.userInfo[NSValidationKeyErrorKey] as? String == "author")
            #expect(nameless.localizedDescription.contains("an author with a name"))
            author.setValue("Frank Herbert", forKey: "name")
            try stack.context.save()
        }
    }

    @Test func anOverrideOfValidateValueSeesEachPropertysCurrentValueAtSave() throws {
        let model = TestModels.library()
        model.entitiesByName["Book"]!.managedObjectClassName = String(reflecting: CheckedBook.self)
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory)
        try stack.context.performAndWait {
            let book = makeBook(stack.context, title: "   ", pages: 12)
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSValidationStringTooShortError)
            #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "title")
            let seen = (book as! CheckedBook).seen
            #expect(seen["title"] as? String == "   ")
            #expect(seen["pages"] as? Int32 == 12)
            #expect(seen["tags"] as? Set<NSManagedObject> == [])
            book.setValue("Dune", forKey: "title")
            try stack.context.save()
        }
    }

    /// A hand-written class the code generator found free of `validateValue(_:forKey:)`
    /// overrides is checked in place, without the per-property call: the same rules, the same
    /// errors, as an object asked property by property.
    @Test func aClassWithoutValidateValueOverridesIsHeldToTheSameRules() throws {
        #expect(!RuleBook._mayOverrideValidateValue)
        #expect(CheckedBook._mayOverrideValidateValue)
        // A subclass the list leaves out (one in another module may override) is asked.
        #expect(UnlistedRuleBook._mayOverrideValidateValue)
        let model = TestModels.library()
        model.entitiesByName["Book"]!.managedObjectClassName = String(reflecting: RuleBook.self)
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: model, directory: directory)
        try stack.context.performAndWait {
            let untitled = makeBook(stack.context, title: nil)
            #expect(untitled is RuleBook)
            _ = makeBook(stack.context, title: "ok", pages: 0)
            _ = makeBook(stack.context, title: String(repeating: "x", count: 41))
            let error = try #require(throws: NSError.self) { try stack.context.save() }
            #expect(error.code == NSValidationMultipleErrorsError)
            let detailed = try #require(error.userInfo[NSDetailedErrorsKey] as? [NSError])
            #expect(
                Set(detailed.map(\.code)) == [NSValidationMissingMandatoryPropertyError, NSValidationNumberTooSmallError, NSValidationStringTooLongError])
            #expect(detailed.contains { $0.userInfo[NSValidationKeyErrorKey] as? String == "title" && ($0.userInfo[NSValidationObjectErrorKey] as? NSManagedObject) === untitled })
            stack.context.rollback()
            _ = makeBook(stack.context, title: "Dune", pages: 412)
            try stack.context.save()
        }
    }

    @Test func validateValueChecksTheValueItIsGivenNotTheOneHeld() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.library(), directory: directory)
        try stack.context.performAndWait {
            let book = makeBook(stack.context, title: "Dune")
            var tooLong: Any? = String(repeating: "x", count: 41)
            let error = try #require(throws: NSError.self) { try book.validateValue(&tooLong, forKey: "title") }
            #expect(error.code == NSValidationStringTooLongError)
            var missing: Any? = nil
            #expect(throws: NSError.self) { try book.validateValue(&missing, forKey: "title") }
            var fine: Any? = "Emma"
            try book.validateValue(&fine, forKey: "title")
            var wrongType: Any? = "many"
            let typeError = try #require(throws: NSError.self) { try book.validateValue(&wrongType, forKey: "pages") }
            #expect(typeError.code == NSManagedObjectValidationError)
            // The object's own values are untouched and still valid.
            #expect(book.value(forKey: "title") as? String == "Dune")
            try stack.context.save()
        }
    }
}

/// A subclass that checks its title as the porting guide shows, and records what it was given.
final class CheckedBook: NSManagedObject {
    var seen: [String: Any] = [:]

    override func validateValue(_ value: inout Any?, forKey key: String) throws {
        seen[key] = value
        try super.validateValue(&value, forKey: key)
        if key == "title", let title = value as? String, title.trimmingCharacters(in: .whitespaces).isEmpty {
            throw NSError(domain: NSCocoaErrorDomain, code: NSValidationStringTooShortError, userInfo: [NSValidationKeyErrorKey: "title"])
        }
    }
}

/// A hand-written class with the conformance the code generator declares for classes that no source
/// of their target overrides `validateValue(_:forKey:)` in (this target has overrides, so it is
/// written here by hand).
class RuleBook: NSManagedObject {}

extension RuleBook: _ValidateValueNotOverridden {
    static let _classesWithoutValidateValueOverride = [ObjectIdentifier(RuleBook.self)]
}

final class UnlistedRuleBook: RuleBook {}
