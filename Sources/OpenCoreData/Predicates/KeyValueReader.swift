import Foundation

/// Reads key paths from the objects predicates are evaluated on: managed objects, the in-memory
/// store's rows, dictionaries, collections (the key applies to every element, as KVC does) and,
/// through reflection, any Swift value with stored properties of those names.
enum KeyValueReader {
    static func value(atKeyPath keyPath: String, of object: Any?) -> Any? {
        value(at: keyPath.split(separator: ".").map(String.init)[...], of: object)
    }

    private static func value(at path: ArraySlice<String>, of object: Any?) -> Any? {
        guard let key = path.first else { return object }
        let rest = path.dropFirst()
        if key.hasPrefix("@") {
            let items = object.flatMap(ValueComparison.collectionElements) ?? []
            if key == "@count" { return NSNumber(value: items.count) }
            if let union = unionOperator(key, items, rest) { return union }
            let values = items.map { value(at: rest, of: $0) }
            let name = ["@sum": "sum:", "@avg": "average:", "@min": "min:", "@max": "max:"][key]
            return name.flatMap { PredicateEvaluator.value(of: NSExpression(storage: .function($0, arguments: [NSExpression(forConstantValue: values)])), object: nil, bindings: nil) }
        }
        return value(at: rest, of: self.value(forKey: key, of: object))
    }

    /// `@unionOfObjects`, `@distinctUnionOfObjects` (the values of the elements) and
    /// `@unionOfArrays`, `@distinctUnionOfArrays`, `@distinctUnionOfSets` (the values of the
    /// elements' elements); nil values are left out, as KVC leaves them out.
    private static func unionOperator(_ key: String, _ items: [Any?], _ rest: ArraySlice<String>) -> [Any?]? {
        let values: [Any?]
        switch key {
        case "@unionOfObjects", "@distinctUnionOfObjects":
            values = items.map { value(at: rest, of: $0) }
        case "@unionOfArrays", "@distinctUnionOfArrays", "@unionOfSets", "@distinctUnionOfSets":
            values = items.flatMap { item in (item.flatMap(ValueComparison.collectionElements) ?? []).map { value(at: rest, of: $0) } }
        default:
            return nil
        }
        let present = values.filter { ValueComparison.normalize($0) != nil }
        guard key.hasPrefix("@distinct") || key == "@unionOfSets" else { return present }
        var distinct: [Any?] = []
        for value in present where !distinct.contains(where: { ValueComparison.isEqual($0, value) }) { distinct.append(value) }
        return distinct
    }

    static func value(forKey key: String, of object: Any?) -> Any? {
        guard let object, !(object is NSNull) else { return nil }
        switch object {
        case let managed as NSManagedObject: return managed.value(forKey: key)
        case let row as StoreRowView: return row.value(forPredicateKey: key)
        case let dictionary as [String: Any]: return dictionary[key]
        case let dictionary as NSDictionary: return dictionary.object(forKey: key)
        case let readable as KeyValueReadable: return readable.readValue(forKey: key)
        case let string as String: return stringValue(forKey: key, of: string)
        case let string as NSString: return stringValue(forKey: key, of: string as String)
        case let number as NSNumber where key == "description": return number.description
        default: break
        }
        if let items = ValueComparison.collectionElements(object) {
            return items.flatMap { item -> [Any?] in
                let value = self.value(forKey: key, of: item)
                return value.flatMap(ValueComparison.collectionElements) ?? [value]
            }
        }
        guard let child = Mirror(reflecting: object).children.first(where: { $0.label == key }) else { return nil }
        return unwrap(child.value)
    }

    /// The keys KVC answers for a string on Apple platforms: `length` in UTF-16 code units (an
    /// `NSString`'s length) and `description`, the string itself.
    private static func stringValue(forKey key: String, of string: String) -> Any? {
        switch key {
        case "length": NSNumber(value: string.utf16.count)
        case "description": string
        default: nil
        }
    }

    /// Reflection hands optionals over as `Any`; a `nil` inside must read as nil.
    private static func unwrap(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrap($0.value) } ?? nil
    }
}

/// An object whose values key paths read by name, as KVC reads an Objective-C object's
/// properties (`$manager.sourceContext` in a mapping model's expression).
protocol KeyValueReadable {
    func readValue(forKey key: String) -> Any?
}
