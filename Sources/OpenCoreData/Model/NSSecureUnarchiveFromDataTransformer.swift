/// Unarchives data that `NSKeyedArchiver` made with secure coding, accepting only the top-level
/// classes `allowedTopLevelClasses` lists; archives in reverse. Core Data's transformer for a
/// transformable attribute whose model names none. Subclass it and override
/// `allowedTopLevelClasses` for an attribute of a class of your own that adopts `NSSecureCoding`.
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// The classes an archive's top-level object may have: Foundation's property-list and
    /// collection classes.
    open class var allowedTopLevelClasses: [AnyClass] {
        [NSArray.self, NSDictionary.self, NSSet.self, NSOrderedSet.self, NSString.self, NSNumber.self, NSDate.self,
         NSData.self, NSURL.self, NSUUID.self, NSNull.self, NSAttributedString.self]
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
        let allowed = type(of: self).allowedTopLevelClasses
        guard let data = value as? Data, KeyedArchiveCheck.holdsOnly(allowed, in: data) else { return nil }
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

/// `NSKeyedUnarchiveFromData` and `NSUnarchiveFromData`: the same archive format without the
/// class check.
final class KeyedUnarchiveFromDataTransformer: NSSecureUnarchiveFromDataTransformer {
    override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, KeyedArchiveCheck.holdsKnownClasses(in: data) else { return nil }
        return try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data)
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false)
    }
}
