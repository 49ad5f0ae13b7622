import Foundation

/// Builds an `NSKeyedArchiver` archive object by object, in the layout Apple's archiver writes:
/// `$objects` starting with `$null`, each class instance a dictionary with a `$class` reference
/// to a shared class description, strings and numbers as plain objects. Objects refer to each
/// other by UID, so a graph with cycles (an entity and its properties) is written by reserving a
/// UID first and filling it later.
struct KeyedArchiveWriter {
    /// A field of an archived instance: a reference, or a value stored in place.
    enum Field {
        case reference(Int)
        case integer(Int)
        case bool(Bool)
        case real(Double)
        case data(Data)
        /// A list of references stored in place, as collections hold their elements (`NS.objects`).
        case references([Int])
    }

    private enum Entry {
        case string(String)
        case integer(Int64)
        case real(Double)
        case bool(Bool)
        case instance(classUID: Int, fields: [(String, Field)])
        case classDescription([String])
        case reserved
    }

    private var entries: [Entry] = [.string("$null")]
    private var stringUIDs: [String: Int] = [:]
    private var classUIDs: [String: Int] = [:]

    /// The UID of `$null`, which stands for nil.
    static let null = 0

    /// A UID for an object whose fields are given later with `fill`, so that objects archived
    /// meanwhile can refer to it.
    mutating func reserve() -> Int {
        entries.append(.reserved)
        return entries.count - 1
    }

    /// Gives a reserved UID its class and fields.
    mutating func fill(_ uid: Int, _ classChain: [String], _ fields: [(String, Field)]) {
        entries[uid] = .instance(classUID: classDescription(classChain), fields: fields)
    }

    /// A new instance of the first class of `classChain` (the class, then its superclasses).
    mutating func instance(_ classChain: [String], _ fields: [(String, Field)]) -> Int {
        let uid = reserve()
        fill(uid, classChain, fields)
        return uid
    }

    /// A string, archived once however often it is used; nil is `$null`.
    mutating func string(_ text: String?) -> Int {
        guard let text else { return Self.null }
        if let uid = stringUIDs[text] { return uid }
        entries.append(.string(text))
        stringUIDs[text] = entries.count - 1
        return entries.count - 1
    }

    /// An `NSArray` (or the class `classChain` names) of the objects `uids` designate.
    mutating func array(_ uids: [Int], _ classChain: [String] = ["NSArray", "NSObject"]) -> Int {
        instance(classChain, [("NS.objects", .references(uids))])
    }

    /// An `NSSet` of the objects `uids` designate.
    mutating func set(_ uids: [Int]) -> Int { array(uids, ["NSSet", "NSObject"]) }

    /// An `NSDictionary` (or the class `classChain` names) of keys and values by UID.
    mutating func dictionary(
        keys: [Int], values: [Int], _ classChain: [String] = ["NSDictionary", "NSObject"]
    ) -> Int {
        instance(classChain, [("NS.keys", .references(keys)), ("NS.objects", .references(values))])
    }

    /// A property-list value or Foundation object as `NSKeyedArchiver` writes it; nil (and any
    /// value of a class this writer does not know) is `$null`.
    mutating func value(_ value: Any?) -> Int {
        switch value {
        case nil, is NSNull: return Self.null
        case let text as String: return string(text)
        case let flag as Bool where !(value is NSNumber):
            entries.append(.bool(flag))
            return entries.count - 1
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            entries.append(type == "d" || type == "f" ? .real(number.doubleValue) : .integer(number.int64Value))
            return entries.count - 1
        case let date as Date:
            return instance(["NSDate", "NSObject"], [("NS.time", .real(date.timeIntervalSinceReferenceDate))])
        case let data as Data:
            return instance(["NSData", "NSObject"], [("NS.data", .data(data))])
        case let uuid as UUID:
            let bytes = withUnsafeBytes(of: uuid.uuid) { Data($0) }
            return instance(["NSUUID", "NSObject"], [("NS.uuidbytes", .data(bytes))])
        case let url as URL:
            return instance(["NSURL", "NSObject"], [("NS.base", .reference(Self.null)), ("NS.relative", .reference(string(url.absoluteString)))])
        case let items as [Any]:
            let uids = items.map { self.value($0) }
            return array(uids)
        case let dictionary as [String: Any]:
            let keys = dictionary.keys.sorted()
            let keyUIDs = keys.map { string($0) }
            let valueUIDs = keys.map { self.value(dictionary[$0]) }
            return self.dictionary(keys: keyUIDs, values: valueUIDs)
        default: return Self.null
        }
    }

    /// The archive with `root` as `$top`'s `root`.
    ///
    /// - Complexity: O(n) in the archived objects.
    func data(root: Int) -> Data {
        var list = BinaryPropertyListWriter()
        var keyStrings: [String: Int] = [:]
        func key(_ text: String) -> Int {
            if let index = keyStrings[text] { return index }
            let index = list.add(.string(text))
            keyStrings[text] = index
            return index
        }
        var objectIndexes: [Int] = []
        objectIndexes.reserveCapacity(entries.count)
        for entry in entries {
            switch entry {
            case .string(let text): objectIndexes.append(list.add(.string(text)))
            case .integer(let value): objectIndexes.append(list.add(.integer(value)))
            case .real(let value): objectIndexes.append(list.add(.real(value)))
            case .bool(let value): objectIndexes.append(list.add(.bool(value)))
            case .reserved: objectIndexes.append(list.add(.string("$null")))
            case .classDescription(let chain):
                let name = list.add(.string(chain[0]))
                let classes = list.add(.array(chain.map { list.add(.string($0)) }))
                objectIndexes.append(list.add(.dictionary(keys: [key("$classname"), key("$classes")], values: [name, classes])))
            case .instance(let classUID, let fields):
                var keys = [key("$class")]
                var values = [list.add(.uid(classUID))]
                for (name, field) in fields {
                    keys.append(key(name))
                    switch field {
                    case .reference(let uid): values.append(list.add(.uid(uid)))
                    case .integer(let value): values.append(list.add(.integer(Int64(value))))
                    case .bool(let value): values.append(list.add(.bool(value)))
                    case .real(let value): values.append(list.add(.real(value)))
                    case .data(let data): values.append(list.add(.data(data)))
                    case .references(let uids): values.append(list.add(.array(uids.map { list.add(.uid($0)) })))
                    }
                }
                objectIndexes.append(list.add(.dictionary(keys: keys, values: values)))
            }
        }
        let objectsArray = list.add(.array(objectIndexes))
        let rootIndex = list.add(.uid(root))
        let topDictionary = list.add(.dictionary(keys: [key("root")], values: [rootIndex]))
        let version = list.add(.integer(100_000))
        let archiver = list.add(.string("NSKeyedArchiver"))
        let top = list.add(
            .dictionary(
                keys: [key("$version"), key("$archiver"), key("$top"), key("$objects")],
                values: [version, archiver, topDictionary, objectsArray]))
        return list.data(top: top)
    }

    /// The shared `$classname`/`$classes` description of a class, archived once.
    private mutating func classDescription(_ chain: [String]) -> Int {
        if let uid = classUIDs[chain[0]] { return uid }
        entries.append(.classDescription(chain))
        classUIDs[chain[0]] = entries.count - 1
        return entries.count - 1
    }

    /// A Boolean stored as an object, as archivers write a Boolean `NSNumber` (a default value).
    mutating func bool(_ flag: Bool) -> Int {
        entries.append(.bool(flag))
        return entries.count - 1
    }
}
