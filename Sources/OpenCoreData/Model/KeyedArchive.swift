/// An `NSKeyedArchiver` archive as a graph of objects, read with the checked binary list
/// reader: every reference is looked up in range, so a damaged archive gives nil, never a trap.
/// `KeyedArchiveReader` builds Foundation values from it; the compiled-model and mapping-model
/// readers walk Core Data's own archived classes (`NSEntityDescription`, `NSEntityMapping`, …).
struct KeyedArchive {
    let list: BinaryPropertyList
    let objects: [Int]
    /// The UID `$top`'s `root` holds, when it holds one.
    let root: Int?

    init?(_ data: Data) {
        guard let list = BinaryPropertyList(data), case .dictionary(let keys, let values)? = list.value(at: list.top) else {
            return nil
        }
        var top: [String: Int] = [:]
        for (key, value) in zip(keys, values) {
            if case .string(let name)? = list.value(at: key) { top[name] = value }
        }
        guard let archiver = top["$archiver"], case .string("NSKeyedArchiver")? = list.value(at: archiver),
            let objectsIndex = top["$objects"], case .array(let objects)? = list.value(at: objectsIndex)
        else { return nil }
        self.list = list
        self.objects = objects
        var root: Int?
        if let fieldsIndex = top["$top"], case .dictionary(let keys, let values)? = list.value(at: fieldsIndex) {
            for (key, value) in zip(keys, values) {
                guard case .string("root")? = list.value(at: key), case .uid(let uid)? = list.value(at: value) else { continue }
                root = uid
            }
        }
        self.root = root
    }

    /// A dictionary object's entries by key string.
    func fields(of index: Int) -> [String: Int]? {
        guard case .dictionary(let keys, let values)? = list.value(at: index) else { return nil }
        var fields: [String: Int] = [:]
        for (key, value) in zip(keys, values) {
            guard case .string(let name)? = list.value(at: key) else { return nil }
            fields[name] = value
        }
        return fields
    }

    /// The archived object a UID designates, as its list index.
    func object(_ uid: Int) -> Int? { uid >= 0 && uid < objects.count ? objects[uid] : nil }

    /// The class name of the archived object at list index `index`, if it is a class instance.
    func className(of index: Int) -> String? {
        guard let fields = fields(of: index), let classReference = fields["$class"],
            case .uid(let uid)? = list.value(at: classReference), let classIndex = object(uid),
            let classFields = self.fields(of: classIndex), let name = classFields["$classname"],
            case .string(let className)? = list.value(at: name)
        else { return nil }
        return className
    }

    // MARK: Instances by UID

    /// An archived class instance: its class name and its fields, each a list index.
    struct Instance {
        let uid: Int
        let className: String
        let fields: [String: Int]
    }

    /// The instance UID `uid` designates; nil for `$null`, a plain value or a damaged entry.
    func instance(_ uid: Int) -> Instance? {
        guard uid != 0, let index = object(uid), let className = className(of: index), let fields = fields(of: index) else {
            return nil
        }
        return Instance(uid: uid, className: className, fields: fields)
    }

    /// The UID a field holds; nil when the field is absent, not a reference, or `$null`.
    func reference(_ instance: Instance, _ key: String) -> Int? {
        guard let field = instance.fields[key], case .uid(let uid)? = list.value(at: field), uid != 0 else { return nil }
        return uid
    }

    /// The string a field refers to (a plain string object or an archived `NSString`).
    func string(_ instance: Instance, _ key: String) -> String? {
        reference(instance, key).flatMap(string(uid:))
    }

    /// The string object `uid` designates.
    func string(uid: Int) -> String? {
        guard let index = object(uid) else { return nil }
        switch list.value(at: index) {
        case .string(let text)?: return uid == 0 ? nil : text
        case .dictionary?:
            guard let nested = instance(uid), ["NSString", "NSMutableString"].contains(nested.className),
                let field = nested.fields["NS.string"], case .string(let text)? = list.value(at: field)
            else { return nil }
            return text
        default: return nil
        }
    }

    /// An integer field stored inline (archivers write numbers and Booleans in place).
    func integer(_ instance: Instance, _ key: String) -> Int? {
        guard let field = instance.fields[key] else { return nil }
        switch list.value(at: field) {
        case .integer(let value)?: return Int(exactly: value)
        case .bool(let value)?: return value ? 1 : 0
        case .real(let value)?: return Int(exactly: value)
        default: return nil
        }
    }

    /// A Boolean field stored inline; integers count as true when non-zero.
    func bool(_ instance: Instance, _ key: String) -> Bool? {
        integer(instance, key).map { $0 != 0 }
    }

    /// The element UIDs of an archived array or set (`NS.objects`).
    func elements(_ uid: Int) -> [Int]? {
        guard let collection = instance(uid), let field = collection.fields["NS.objects"],
            case .array(let references)? = list.value(at: field)
        else { return nil }
        var uids: [Int] = []
        uids.reserveCapacity(references.count)
        for reference in references {
            guard case .uid(let uid)? = list.value(at: reference) else { return nil }
            uids.append(uid)
        }
        return uids
    }

    /// The entries of an archived dictionary whose keys are strings, in archive order: an
    /// `NSDictionary`, or the `NSKnownKeysDictionary1` Core Data archives a model's entities and
    /// properties in (its keys in a `NSKnownKeysMappingStrategy1`'s array, its values in an array
    /// of the same order), as in a store's model cache.
    func entries(_ uid: Int) -> [(key: String, value: Int)]? {
        if let known = instance(uid), known.className == "NSKnownKeysDictionary1" {
            guard let mapping = reference(known, "searchMapping").flatMap(instance), let keys = reference(mapping, "keys").flatMap(elements),
                let values = reference(known, "values").flatMap(elements), keys.count == values.count
            else { return nil }
            var result: [(key: String, value: Int)] = []
            for (key, value) in zip(keys, values) {
                guard let name = string(uid: key) else { return nil }
                result.append((name, value))
            }
            return result
        }
        guard let dictionary = instance(uid), let keysField = dictionary.fields["NS.keys"],
            case .array(let keyReferences)? = list.value(at: keysField), let valuesField = dictionary.fields["NS.objects"],
            case .array(let valueReferences)? = list.value(at: valuesField), keyReferences.count == valueReferences.count
        else { return nil }
        var result: [(key: String, value: Int)] = []
        for (keyReference, valueReference) in zip(keyReferences, valueReferences) {
            guard case .uid(let keyUID)? = list.value(at: keyReference), let key = string(uid: keyUID),
                case .uid(let valueUID)? = list.value(at: valueReference)
            else { return nil }
            result.append((key, valueUID))
        }
        return result
    }
}
