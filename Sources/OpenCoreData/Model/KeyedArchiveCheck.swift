/// Looks inside an `NSKeyedArchiver` archive before Linux's `NSKeyedUnarchiver` does: that one
/// stops the program, rather than failing, on a class the caller does not allow ("Value was of
/// unexpected class"), and a store file can hold any archive.
enum KeyedArchiveCheck {
    /// The class names an archive's objects have, or nil when `data` is not a keyed archive.
    static func classNames(in data: Data) -> Set<String>? {
        guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any],
            plist["$archiver"] as? String == "NSKeyedArchiver", plist["$top"] is [String: Any],
            let objects = plist["$objects"] as? [Any]
        else { return nil }
        var names = Set<String>()
        for case let object as [String: Any] in objects {
            if let name = object["$classname"] as? String { names.insert(name) }
        }
        return names
    }

    /// Whether every class of the archive in `data` is one of `allowed` or a subclass of one.
    static func holdsOnly(_ allowed: [AnyClass], in data: Data) -> Bool {
        guard let names = classNames(in: data) else { return false }
        return names.allSatisfy { name in
            guard let found = NSClassFromString(name) else { return false }
            return allowed.contains { (found as? NSObject.Type)?.isSubclass(of: $0) ?? false }
        }
    }

    /// Whether every class of the archive in `data` exists in this process.
    static func holdsKnownClasses(in data: Data) -> Bool {
        classNames(in: data)?.allSatisfy { NSClassFromString($0) != nil } ?? false
    }
}
