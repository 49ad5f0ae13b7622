/// Reads `NSKeyedArchiver` archives of Foundation's property-list and collection classes without
/// Linux's `NSKeyedUnarchiver`, which stops the program on a damaged archive (a dictionary whose
/// keys and objects differ in number, a class it may not decode) where a store file can hold any.
/// Everything is checked: references in range, nesting at most 64 deep, each class one it knows.
enum KeyedArchiveReader {
    static let maximumDepth = 64
    /// How many objects one read may build: an archive that lists one object many times at
    /// every level (`[x, x]` nested 64 deep) would otherwise take 2^64 steps.
    static let maximumObjects = 1_000_000

    /// The classes this reader builds, by the names archives give them.
    static let knownClassNames: Set<String> = [
        "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet", "NSDictionary",
        "NSMutableDictionary", "NSString", "NSMutableString", "NSNumber", "NSDate", "NSData", "NSMutableData", "NSURL",
        "NSUUID", "NSNull",
    ]

    /// The class names of an archive's objects; nil when `data` is not a keyed archive.
    static func classNames(in data: Data) -> Set<String>? {
        guard let archive = KeyedArchive(data) else { return nil }
        var names = Set<String>()
        for index in archive.objects {
            if let fields = archive.fields(of: index), let name = fields["$classname"], case .string(let className)? = archive.list.value(at: name) {
                names.insert(className)
            }
        }
        return names
    }

    /// The root object of the archive in `data`, built from Foundation's classes; nil when `data`
    /// is not a well-formed archive or holds a class outside `allowed` (names; nil allows every
    /// class this reader knows).
    static func object(from data: Data, allowing allowed: Set<String>? = nil) -> Any? {
        guard let archive = KeyedArchive(data), let root = archive.root else { return nil }
        var reader = Reader(archive: archive, allowed: allowed ?? knownClassNames)
        return reader.decode(uid: root, depth: 0)
    }

    /// The Foundation value `uid` designates in `archive` (a string, number, date, data, UUID,
    /// URL or a collection of them); nil for `$null` or anything else.
    static func value(uid: Int, in archive: KeyedArchive) -> Any? {
        var reader = Reader(archive: archive, allowed: knownClassNames)
        return reader.decode(uid: uid, depth: 0)
    }

    private struct Reader {
        let archive: KeyedArchive
        let allowed: Set<String>
        var budget = KeyedArchiveReader.maximumObjects

        mutating func decode(uid: Int, depth: Int) -> Any? {
            guard depth < KeyedArchiveReader.maximumDepth, budget > 0, let index = archive.object(uid) else { return nil }
            budget -= 1
            switch archive.list.value(at: index) {
            case .string(let string)?: return string == "$null" && uid == 0 ? nil : NSString(string: string)
            case .integer(let value)?: return NSNumber(value: value)
            case .real(let value)?: return NSNumber(value: value)
            case .bool(let value)?: return NSNumber(value: value)
            case .data(let data)?: return NSData(data: data)
            case .dictionary?: return instance(at: index, depth: depth)
            default: return nil
            }
        }

        mutating func instance(at index: Int, depth: Int) -> Any? {
            guard let className = archive.className(of: index), KeyedArchiveReader.knownClassNames.contains(className),
                allowed.contains(className), let fields = archive.fields(of: index)
            else { return nil }
            switch className {
            case "NSArray", "NSMutableArray":
                return elements(fields["NS.objects"], depth).map { NSArray(array: $0) }
            case "NSSet", "NSMutableSet":
                return elements(fields["NS.objects"], depth).map { NSSet(array: $0) }
            case "NSOrderedSet", "NSMutableOrderedSet":
                return elements(fields["NS.objects"], depth).map { NSOrderedSet(array: $0) }
            case "NSDictionary", "NSMutableDictionary":
                guard let keys = elements(fields["NS.keys"], depth), let values = elements(fields["NS.objects"], depth),
                    keys.count == values.count
                else { return nil }
                guard let hashableKeys = keys as? [NSObject] else { return nil }
                return NSDictionary(objects: values, forKeys: hashableKeys)
            case "NSString", "NSMutableString":
                guard let field = fields["NS.string"], case .string(let string)? = archive.list.value(at: field) else { return nil }
                return NSString(string: string)
            case "NSDate":
                guard let field = fields["NS.time"] else { return nil }
                switch archive.list.value(at: field) {
                case .real(let seconds)?: return NSDate(timeIntervalSinceReferenceDate: seconds)
                case .integer(let seconds)?: return NSDate(timeIntervalSinceReferenceDate: Double(seconds))
                default: return nil
                }
            case "NSData", "NSMutableData":
                guard let field = fields["NS.data"], case .data(let data)? = archive.list.value(at: field) else { return nil }
                return NSData(data: data)
            case "NSURL":
                guard let field = fields["NS.relative"], let relative = referenced(field, depth) as? NSString else { return nil }
                let base = fields["NS.base"].flatMap { referenced($0, depth) } as? NSURL
                return NSURL(string: relative as String, relativeTo: base as URL?)
            case "NSUUID":
                guard let field = fields["NS.uuidbytes"], case .data(let bytes)? = archive.list.value(at: field), bytes.count == 16 else {
                    return nil
                }
                return NSUUID(uuidString: UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString)
            case "NSNull":
                return NSNull()
            default:
                return nil
            }
        }

        /// The objects an `NS.objects` or `NS.keys` array of UIDs refers to; nil when one of them
        /// cannot be read (a collection never holds nil).
        mutating func elements(_ field: Int?, _ depth: Int) -> [Any]? {
            guard let field, case .array(let references)? = archive.list.value(at: field) else { return nil }
            var result: [Any] = []
            result.reserveCapacity(references.count)
            for reference in references {
                guard case .uid(let uid)? = archive.list.value(at: reference), let element = decode(uid: uid, depth: depth + 1) else {
                    return nil
                }
                result.append(element)
            }
            return result
        }

        /// The object a field's UID refers to.
        mutating func referenced(_ field: Int, _ depth: Int) -> Any? {
            guard case .uid(let uid)? = archive.list.value(at: field) else { return nil }
            return decode(uid: uid, depth: depth + 1)
        }
    }
}
