import OpenCoreData

/// How a stored value is shown: in JSON (objects as their URIs, dates in ISO 8601, bytes in
/// Base64, decimals as strings so that no digit is lost) and as text for the plain and CSV forms.
enum DumpedValue {
    /// The related objects a relationship's value holds, in order for an ordered one.
    static func objects(_ value: Any?) -> [NSManagedObject] {
        switch value {
        case let object as NSManagedObject: return [object]
        case let set as Set<NSManagedObject>: return set.sorted { uri($0) < uri($1) }
        case let ordered as NSOrderedSet: return ordered.array.compactMap { $0 as? NSManagedObject }
        case let set as NSSet: return set.allObjects.compactMap { $0 as? NSManagedObject }.sorted { uri($0) < uri($1) }
        case let array as [NSManagedObject]: return array
        default: return []
        }
    }

    static func uri(_ object: NSManagedObject) -> String { object.objectID.uriRepresentation().absoluteString }

    /// A value JSONSerialization writes.
    static func json(_ value: Any?) -> Any {
        switch value {
        case nil, is NSNull: return NSNull()
        case let text as String: return text
        case let decimal as NSDecimalNumber: return decimal.stringValue
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal).stringValue
        case let flag as Bool where !(value is NSNumber): return flag
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            guard type == "d" || type == "f" else { return number }
            // JSON has no NaN or infinity.
            return number.doubleValue.isFinite ? number : "\(number.doubleValue)"
        case let date as Date: return iso8601(date)
        case let data as Data: return data.base64EncodedString()
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let id as NSManagedObjectID: return id.uriRepresentation().absoluteString
        case let dictionary as [String: Any]: return dictionary.mapValues { json($0) }
        case let ids as ToManyIDs: return ids.uris
        default: return "\(value!)"
        }
    }

    /// A value as one line of text; nil is empty.
    static func text(_ value: Any?) -> String {
        switch json(value) {
        case is NSNull: return ""
        case let text as String: return text
        case let flag as Bool: return flag ? "true" : "false"
        case let uris as [String]: return uris.joined(separator: " ")
        case let dictionary as [String: Any]:
            let data = (try? JSONSerialization.data(withJSONObject: dictionary, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        case let other: return "\(other)"
        }
    }

    /// One formatter for every date printed: making one per value costs more than the value.
    /// (The program formats on one thread.)
    nonisolated(unsafe) private static let dateFormatter: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    static func iso8601(_ date: Date) -> String { dateFormatter.string(from: date) }

    /// A CSV field (RFC 4180): quoted when it holds a comma, a quote, a line break or edge spaces.
    static func csvField(_ text: String) -> String {
        let needsQuotes = text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) || text.first == " " || text.last == " "
        return needsQuotes ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    /// Compact, key-sorted JSON text, one document.
    static func jsonText(_ object: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
