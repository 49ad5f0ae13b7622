/// How Core Data compares two values in predicates and sort descriptors: numbers across integer,
/// floating and boolean types, strings, dates, data, UUIDs; nil sorts before everything.
enum ValueComparison {
    /// Three-way comparison; nil when the two values are of kinds that do not compare.
    static func compare(_ lhs: Any?, _ rhs: Any?, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> ComparisonResult? {
        let a = normalize(lhs)
        let b = normalize(rhs)
        switch (a, b) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case (let x as Double, let y as Double): return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        case (let x as Int64, let y as Int64): return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        case (let x as Int64, let y as Double): return compare(Double(x), y)
        case (let x as Double, let y as Int64): return compare(x, Double(y))
        case (let x as Decimal, let y as Decimal): return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        case (let x as Decimal, let y): return compare(NSDecimalNumber(decimal: x).doubleValue, y)
        case (let x, let y as Decimal): return compare(x, NSDecimalNumber(decimal: y).doubleValue)
        case (let x as String, let y as String):
            return compareStrings(x, y, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        case (let x as Date, let y as Date): return x < y ? .orderedAscending : (x > y ? .orderedDescending : .orderedSame)
        case (let x as Data, let y as Data):
            return x.lexicographicallyPrecedes(y) ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        case (let x as UUID, let y as UUID): return compare(x.uuidString, y.uuidString)
        case (let x as URL, let y as URL): return compare(x.absoluteString, y.absoluteString)
        default: return nil
        }
    }

    /// Strings compare by Unicode code points, exactly as SQLite's BINARY collation compares UTF-8,
    /// so that in-memory order equals store order; the options fold case and diacritics first.
    /// Canonically equivalent strings spelled with different code points are not the same here:
    /// treating them as equal while ordering the rest by code point would not be transitive.
    static func compareStrings(_ x: String, _ y: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> ComparisonResult {
        let a = fold(x, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive).unicodeScalars
        let b = fold(y, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive).unicodeScalars
        if a.elementsEqual(b) { return .orderedSame }
        return a.lexicographicallyPrecedes(b) ? .orderedAscending : .orderedDescending
    }

    static func fold(_ string: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        var options: String.CompareOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        if options.isEmpty { return string }
        return string.folding(options: options, locale: nil)
    }

    /// Numbers become `Int64` or `Double`, `NSNumber`s and `NSString`s their Swift values.
    static func normalize(_ value: Any?) -> Any? {
        guard let value else { return nil }
        // Before the Swift number types: an NSDecimalNumber bridges to Double (and Bool, Int) and
        // would lose its digits. A comparison of metatypes, not a cast: this runs per value a
        // predicate compares.
        if type(of: value) == NSDecimalNumber.self, let decimal = value as? NSDecimalNumber { return decimal.decimalValue }
        switch value {
        case is NSNull: return nil
        case let v as Bool: return Int64(v ? 1 : 0)
        case let v as Int: return Int64(v)
        case let v as Int64: return v
        case let v as Int32: return Int64(v)
        case let v as Int16: return Int64(v)
        case let v as Int8: return Int64(v)
        // Unsigned values above Int64.max compare as doubles rather than trap.
        case let v as UInt: return Int64(exactly: v) ?? Double(v)
        case let v as UInt64: return Int64(exactly: v) ?? Double(v)
        case let v as UInt32: return Int64(v)
        case let v as UInt16: return Int64(v)
        case let v as UInt8: return Int64(v)
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Decimal: return v
        case let v as NSNumber:
            let type = String(cString: v.objCType)
            if type == "d" || type == "f" { return v.doubleValue }
            if type == "Q" || type == "L" { return Int64(exactly: v.uint64Value) ?? Double(v.uint64Value) }
            return v.int64Value
        case let v as NSString: return v as String
        case let v as Substring: return String(v)
        case let v as NSDate: return v as Date
        default: return value
        }
    }
}

// MARK: Equality for predicates

extension ValueComparison {
    /// Whether two values are equal as a predicate's `==` sees them: numbers across integer,
    /// floating and boolean types, strings after the folding `options` ask for, objects by identity
    /// or object ID, nil equal only to nil.
    static func isEqual(_ lhs: Any?, _ rhs: Any?, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) -> Bool {
        let a = normalize(lhs)
        let b = normalize(rhs)
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case (let x as String, let y as String):
            return fold(x, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
                == fold(y, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
        case (let x as IndexSymbol, let y as IndexSymbol): return x == y
        default: break
        }
        if let identity = objectIdentity(a!), let other = objectIdentity(b!) { return identity == other }
        if let order = compare(a, b) { return order == .orderedSame }
        if let x = collectionElements(a!), let y = collectionElements(b!) {
            return x.count == y.count && zip(x, y).allSatisfy { isEqual($0, $1, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive) }
        }
        if let x = a as? NSObject, let y = b as? NSObject { return x.isEqual(y) }
        return false
    }

    /// A hash consistent with `isEqual` for constants: numbers hash by their double value.
    static func hashValue(_ value: Any?) -> Int {
        switch normalize(value) {
        case nil: return 0
        case let x as Int64: return Double(x).hashValue
        case let x as Double: return x.hashValue
        case let x as String: return x.hashValue
        case let x as Date: return x.hashValue
        case let x as AnyHashable: return x.hashValue
        default: return 7
        }
    }

    /// Managed objects, object IDs and stored rows compare by identity in the object graph.
    static func objectIdentity(_ value: Any) -> ObjectKey? {
        switch value {
        case let object as NSManagedObject: return object.objectID.key
        case let id as NSManagedObjectID: return id.key
        case let row as StoreRowView: return row.objectKey
        default: return nil
        }
    }

    /// The elements of an array, set or ordered set; nil for anything else (strings included).
    static func collectionElements(_ value: Any) -> [Any?]? {
        switch value {
        case is String, is NSString, is Data: return nil
        case let array as [Any?]: return array
        case let array as [Any]: return array
        case let set as Set<AnyHashable>: return set.map { $0.base }
        case let ordered as NSOrderedSet: return ordered.array
        case let set as NSSet: return set.allObjects
        case let array as NSArray: return array.map { $0 }
        default: return nil
        }
    }

    static func int64Value(_ normalized: Any) -> Int64? {
        switch normalized {
        case let x as Int64: return x
        case let x as Double: return x.isFinite ? Int64(exactly: x.rounded(.towardZero)) : nil
        case let x as Decimal: return NSDecimalNumber(decimal: x).int64Value
        default: return nil
        }
    }

    static func doubleValue(_ normalized: Any) -> Double? {
        switch normalized {
        case let x as Int64: return Double(x)
        case let x as Double: return x
        case let x as Decimal: return NSDecimalNumber(decimal: x).doubleValue
        default: return nil
        }
    }
}
