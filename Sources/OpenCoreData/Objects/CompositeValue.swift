/// The in-memory form of a composite attribute's value: a dictionary keyed by element names, a
/// nested composite as a dictionary inside it, as Core Data hands composites out
/// (`NSCompositeAttributeDescription`).
package enum CompositeValue {
    /// The slot for a value set on `composite`: the dictionary with every element value in the
    /// form Core Data hands it out (numbers as `NSNumber`), `.null` for nil or a dictionary of no
    /// values, and `.invalid` for anything else (refused at save, as a value of the wrong type is).
    static func slot(_ value: Any, for composite: NSCompositeAttributeDescription) -> SlotValue {
        guard let dictionary = normalized(value, for: composite) else { return .invalid(AnyBox(value)) }
        return dictionary.isEmpty ? .null : .object(AnyBox(dictionary))
    }

    /// The slot of a composite read from a store: its leaf values (nil for NULL) at their paths;
    /// `.null` when every leaf is NULL, the composite's value before anything set it.
    package static func slot(fromLeaves leaves: some Sequence<([String], Any?)>) -> SlotValue {
        var dictionary: [String: Any] = [:]
        for (path, value) in leaves {
            guard let value else { continue }
            dictionary = setting(value, at: path[...], in: dictionary)
        }
        return dictionary.isEmpty ? .null : .object(AnyBox(dictionary))
    }

    /// `value` as a composite's dictionary, or nil when it is not a dictionary, names a key that
    /// is no element, or holds a value an element can't take. Nil and `NSNull` elements are left
    /// out, as absent keys.
    private static func normalized(_ value: Any, for composite: NSCompositeAttributeDescription) -> [String: Any]? {
        guard let entries = dictionary(value) else { return nil }
        var result: [String: Any] = [:]
        for (key, element) in entries {
            guard let attribute = composite.elements.first(where: { $0.name == key }) else { return nil }
            guard let element = present(element) else { continue }
            if let nested = attribute as? NSCompositeAttributeDescription {
                guard let inner = normalized(element, for: nested) else { return nil }
                if !inner.isEmpty { result[key] = inner }
                continue
            }
            let slot = SlotValue(attributeValue: element, for: attribute)
            if case .invalid = slot { return nil }
            if let stored = slot.publicValue(for: attribute) { result[key] = stored }
        }
        return result
    }

    /// The value inside an element, nil for `NSNull` or an optional holding nil (a `[String: Any]`
    /// literal with an optional in it holds the optional).
    private static func present(_ value: Any) -> Any? {
        if value is NSNull { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { present($0.value) }
    }

    /// A Swift or Foundation dictionary with string keys.
    static func dictionary(_ value: Any) -> [String: Any]? {
        if let dictionary = value as? [String: Any] { return dictionary }
        guard let dictionary = value as? NSDictionary else { return nil }
        var result: [String: Any] = [:]
        for (key, element) in dictionary {
            guard let key = key as? String else { return nil }
            result[key] = element
        }
        return result
    }

    /// The value at a path of element names, nil where the path leaves the dictionaries.
    static func value(at path: some Collection<String>, in value: Any?) -> Any? {
        var current = value
        for name in path {
            guard let dictionary = current.flatMap(dictionary) else { return nil }
            current = dictionary[name]
        }
        return current
    }

    /// `dictionary` with the value at `path` replaced (removed for nil), the dictionaries on the
    /// way created as needed.
    static func setting(_ value: Any?, at path: ArraySlice<String>, in dictionary: [String: Any]) -> [String: Any] {
        guard let name = path.first else { return dictionary }
        var result = dictionary
        if path.count == 1 {
            result[name] = value
        } else {
            let inner = result[name].flatMap(self.dictionary) ?? [:]
            result[name] = setting(value, at: path.dropFirst(), in: inner)
        }
        return result
    }

    /// Whether two composite dictionaries hold the same values, element by element.
    static func isEqual(_ a: [String: Any], _ b: [String: Any]) -> Bool {
        guard a.count == b.count else { return false }
        for (key, left) in a {
            guard let right = b[key] else { return false }
            if let left = dictionary(left), let right = dictionary(right) {
                guard isEqual(left, right) else { return false }
            } else if !ValueComparison.isEqual(left, right) {
                return false
            }
        }
        return true
    }
}
