/// Default values and validation bounds, which Xcode writes as strings whatever the attribute type.
extension XcodeModelBuilder {
    /// The default value typed as Core Data hands it out: `NSNumber` for numbers and booleans,
    /// `NSDecimalNumber`, `String`, `Date`, `UUID` or `URL`.
    func defaultValue(of element: ModelXMLElement, type: NSAttributeType, label: String) throws -> Any? {
        // Dates are written as seconds since 2001 in their own XML attribute.
        if type == .dateAttributeType {
            guard let text = element["defaultDateTimeInterval"] ?? element["defaultValueString"] else { return nil }
            return Date(timeIntervalSinceReferenceDate: try seconds(text, element, "default value", label))
        }
        guard let text = element["defaultValueString"] else { return nil }
        let value: Any?
        switch type {
        case .integer16AttributeType: value = Int16(text).map { NSNumber(value: $0) }
        case .integer32AttributeType: value = Int32(text).map { NSNumber(value: $0) }
        case .integer64AttributeType: value = Int64(text).map { NSNumber(value: $0) }
        case .doubleAttributeType: value = Double(text).map { NSNumber(value: $0) }
        case .floatAttributeType: value = Float(text).map { NSNumber(value: $0) }
        case .decimalAttributeType:
            value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { NSDecimalNumber(decimal: $0) }
        case .booleanAttributeType:
            switch text.lowercased() {
            case "yes", "true", "1": value = NSNumber(value: true)
            case "no", "false", "0": value = NSNumber(value: false)
            default: value = nil
            }
        case .stringAttributeType: value = text
        case .UUIDAttributeType: value = UUID(uuidString: text)
        case .URIAttributeType: value = URL(string: text)
        default:
            // Xcode offers no default for binary, transformable and other types; ignore a stray one.
            return nil
        }
        guard let value else {
            throw corrupt(element, "\(label) has a default value '\(text)' that is not a valid \(type.xcodeName)")
        }
        return value
    }

    /// Minimum, maximum and pattern. Bounds of numbers are values, of strings and data lengths,
    /// of dates seconds since 2001 (Xcode writes those in `min/maxDateTimeInterval`).
    func rules(of element: ModelXMLElement, type: NSAttributeType, label: String) throws -> AttributeRules {
        var rules = AttributeRules()
        let isDate = type == .dateAttributeType
        let minimum = (isDate ? element["minDateTimeInterval"] : nil) ?? element["minValueString"]
        let maximum = (isDate ? element["maxDateTimeInterval"] : nil) ?? element["maxValueString"]
        if let minimum { rules.minimum = try seconds(minimum, element, "minimum", label) }
        if let maximum { rules.maximum = try seconds(maximum, element, "maximum", label) }
        if let pattern = element["regularExpressionString"], !pattern.isEmpty { rules.pattern = pattern }
        return rules
    }

    /// A bound or date as a `Double`; anything else makes the file corrupt.
    private func seconds(_ text: String, _ element: ModelXMLElement, _ what: String, _ label: String) throws -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw corrupt(element, "\(label) has a \(what) '\(text)' that is not a number")
        }
        return value
    }
}
