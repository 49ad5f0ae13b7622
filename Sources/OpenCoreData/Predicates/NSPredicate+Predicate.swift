import Foundation

/// Lets `NSPredicate(_:)` turn a Swift `Predicate` into its NSPredicate equivalent on Linux (Apple's
/// initializer since iOS 17), returning the subclass the conversion makes.
public protocol _SwiftPredicateInitializable {}

extension Foundation.NSPredicate: _SwiftPredicateInitializable {}

extension _SwiftPredicateInitializable {
    /// The NSPredicate that says what `predicate` says, as its format-string twin would, so that a
    /// store compiles it to SQL: `#Predicate<Item> { $0.done == false && $0.name.starts(with: "A") }`
    /// is `done == NO AND name BEGINSWITH "A"`. Nil for a predicate with a part that has no
    /// equivalent, as Apple's initializer returns nil; `NSPredicate.conversionError(for:)` says
    /// which part.
    ///
    /// - Parameter predicate: A predicate over a managed object class: comparisons, `&&`, `||`,
    ///   `!`, optionals (`?.`, `??`, `!= nil`), `contains`, `starts(with:)` and
    ///   `localizedStandardContains` of strings, `caseInsensitiveCompare` results compared with a
    ///   captured `ComparisonResult`, `contains` of a collection (`IN`), to-one key paths, and `contains(where:)`,
    ///   `allSatisfy` and `count` of to-many relationships.
    public init?<Input: NSManagedObject>(_ predicate: Predicate<Input>) {
        guard let converted = try? Foundation.NSPredicate.converting(predicate), let result = converted as? Self else { return nil }
        self = result
    }
}

extension Foundation.NSPredicate {
    /// Why `NSPredicate(_:)` returns nil for `predicate`.
    ///
    /// - Parameter predicate: A predicate over a managed object class.
    /// - Returns: The error naming the part without an NSPredicate equivalent, or nil when the
    ///   predicate converts.
    public static func conversionError<Input: NSManagedObject>(for predicate: Predicate<Input>) -> (any Error)? {
        do {
            _ = try converting(predicate)
            return nil
        } catch {
            return error
        }
    }

    static func converting<Input: NSManagedObject>(_ predicate: Predicate<Input>) throws -> Foundation.NSPredicate {
        var converter = PredicateConverter(root: predicate.variable.key)
        return try converter.predicate(predicate.expression)
    }

    /// The NSPredicate of a predicate over objects that are not managed objects but stand for
    /// them (OpenSwiftData's models).
    ///
    /// - Parameters:
    ///   - predicate: The predicate.
    ///   - propertyName: The property names a key path of the predicate reads, nil for none.
    ///   - constant: A captured value as the NSPredicate compares it.
    /// - Returns: The NSPredicate.
    /// - Throws: An error naming the part without an NSPredicate equivalent.
    package static func converting<Input>(
        _ predicate: Predicate<Input>, propertyName: @escaping (AnyKeyPath) -> String?, constant: @escaping (Any) -> Any?
    ) throws -> Foundation.NSPredicate {
        var converter = PredicateConverter(root: predicate.variable.key, propertyName: propertyName, constant: constant)
        return try converter.predicate(predicate.expression)
    }
}
