/// Unarchives data that `NSKeyedArchiver` made with secure coding, accepting only the top-level
/// classes `allowedTopLevelClasses` lists; archives in reverse. Core Data's transformer for a
/// transformable attribute whose model names none. Subclass it and override
/// `allowedTopLevelClasses` for an attribute of a class of your own that adopts `NSSecureCoding`.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// The classes an archive's objects may have: Foundation's property-list and collection
    /// classes, Apple's documented list.
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self,
         NSUUID.self, NSNull.self]
    }

    override open class func transformedValueClass() -> AnyClass { NSObject.self }
    override open class func allowsReverseTransformation() -> Bool { true }

    /// Unarchives `value`.
    ///
    /// - Parameter value: Data a keyed archiver made.
    /// - Returns: The archived object, or nil when `value` is not such data or holds a class that
    ///   is not allowed (checked before Foundation's unarchiver sees it: on Linux it stops the
    ///   program on such a class).
    override open func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        let allowed = type(of: self).allowedTopLevelClasses
        let names = Set(allowed.map { NSStringFromClass($0) })
        // Foundation's classes, the ones store files hold, are read without Linux's unarchiver,
        // which stops the program on a damaged archive.
        if names.isSubset(of: KeyedArchiveReader.knownClassNames) || KeyedArchiveReader.classNames(in: data)?.isSubset(of: KeyedArchiveReader.knownClassNames) == true {
            return KeyedArchiveReader.object(from: data, allowing: Self.withMutableVariants(names))
        }
        // A subclass's own classes: Foundation's unarchiver, once every class of the archive is
        // one it allows (it stops the program on any other).
        guard let classes = KeyedArchiveReader.classNames(in: data), classes.allSatisfy({ name in
            guard let found = NSClassFromString(name) as? NSObject.Type else { return false }
            return allowed.contains { found.isSubclass(of: $0) }
        }) else { return nil }
        return try? NSKeyedUnarchiver.unarchivedObject(ofClasses: allowed, from: data)
    }

    /// Archives `value` with secure coding.
    ///
    /// - Parameter value: An object whose class adopts `NSSecureCoding`.
    /// - Returns: The archive's data, or nil when `value` cannot be archived.
    override open func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
    }
}

/// `NSKeyedUnarchiveFromData` and `NSUnarchiveFromData`: the same archive format, any of
/// Foundation's property-list and collection classes.
final class KeyedUnarchiveFromDataTransformer: NSSecureUnarchiveFromDataTransformer {
    override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return KeyedArchiveReader.object(from: data)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false)
    }
}

extension NSSecureUnarchiveFromDataTransformer {
    /// The names of `names`' mutable subclasses with them: an archive names the class of the
    /// instance (`NSMutableArray`), the allowed list its superclass.
    static func withMutableVariants(_ names: Set<String>) -> Set<String> {
        names.union(names.filter { $0.hasPrefix("NS") }.map { "NSMutable" + $0.dropFirst(2) })
    }
}
