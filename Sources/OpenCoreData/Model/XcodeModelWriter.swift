import Foundation

/// Writes a model as an Xcode model (`<name>.xcdatamodel/contents`) in the elements and
/// attributes Xcode's model editor writes, the inverse of `XcodeModelBuilder`: loading what it
/// writes gives a model with the same version hashes, derivations, fetched properties and
/// composites. A model recovered from a store becomes a source file again this way.
package enum XcodeModelWriter {
    /// A name or value XML cannot carry (a control character, U+FFFE, U+FFFF).
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The `contents` XML of `model`.
    ///
    /// - Throws: `Failure` when a name or value holds a character XML cannot carry.
    /// - Complexity: O(n) in the model's size.
    package static func contents(of model: NSManagedObjectModel) throws(Failure) -> Data {
        var xml = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        xml += #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift""#
        xml += " userDefinedModelVersionIdentifier=\"\(escape(model.versionIdentifiers.compactMap { $0.base as? String }.sorted().first ?? ""))\">\n"
        var composites: [(name: String, elements: [NSAttributeDescription])] = []
        for entity in model.entities.sorted(by: { ($0.name ?? "") < ($1.name ?? "") }) {
            xml += entityElement(entity, composites: &composites)
        }
        // Each composite attribute gets a definition of its own, named after where it is.
        var index = 0
        while index < composites.count {
            let composite = composites[index]
            xml += "    <composite name=\"\(escape(composite.name))\">\n"
            for element in composite.elements {
                xml += "        " + attributeElement(element, compositeName: composite.name + "." + element.name, composites: &composites) + "\n"
            }
            xml += "    </composite>\n"
            index += 1
        }
        for name in model.configurations {
            xml += "    <configuration name=\"\(escape(name))\">\n"
            for entity in (model.entities(forConfigurationName: name) ?? []).compactMap(\.name).sorted() {
                xml += "        <memberEntity name=\"\(escape(entity))\"/>\n"
            }
            xml += "    </configuration>\n"
        }
        xml += "</model>\n"
        // Checked once over the whole text: XML 1.0 has no way to write these, even escaped.
        if let bad = xml.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\n") || $0.value == 0xFFFE || $0.value == 0xFFFF }) {
            throw Failure(description: "the model holds the character U+\(String(bad.value, radix: 16, uppercase: true)), which an Xcode model cannot")
        }
        return Data(xml.utf8)
    }

    /// Writes `model` into the folder `url` (an `.xcdatamodel`), creating it.
    ///
    /// - Parameters:
    ///   - model: The model to write.
    ///   - url: The `.xcdatamodel` folder; its `contents` file is replaced.
    /// - Throws: `Failure` for a model XML cannot carry, else the file system's error when the
    ///   folder cannot be made or written.
    package static func write(_ model: NSManagedObjectModel, to url: URL) throws {
        let data = try contents(of: model)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try data.write(to: url.appendingPathComponent("contents"), options: .atomic)
    }

    private static func entityElement(_ entity: NSEntityDescription, composites: inout [(name: String, elements: [NSAttributeDescription])]) -> String {
        let name = entity.name ?? ""
        var attributes = [("name", name), ("representedClassName", entity.managedObjectClassName ?? "NSManagedObject")]
        if let parent = entity.superentity?.name { attributes.append(("parentEntity", parent)) }
        if entity.isAbstract { attributes.append(("isAbstract", "YES")) }
        if let renaming = entity.renamingIdentifier { attributes.append(("elementID", renaming)) }
        if let modifier = entity.versionHashModifier { attributes.append(("versionHashModifier", modifier)) }
        attributes.append(("syncable", "YES"))
        var xml = "    <entity \(list(attributes))>\n"
        for property in entity.declaredProperties.sorted(by: { $0.name < $1.name }) {
            switch property {
            case let relationship as NSRelationshipDescription:
                xml += "        " + relationshipElement(relationship) + "\n"
            case let fetched as NSFetchedPropertyDescription:
                xml += fetchedPropertyElement(fetched)
            case let attribute as NSAttributeDescription:
                xml += "        " + attributeElement(attribute, compositeName: name + "." + attribute.name, composites: &composites) + "\n"
            default:
                break
            }
        }
        let constraints = entity.uniquenessConstraints.map { $0.compactMap { ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name } }
        if !constraints.isEmpty {
            xml += "        <uniquenessConstraints>\n"
            for constraint in constraints {
                xml += "            <uniquenessConstraint>\n"
                for member in constraint { xml += "                <constraint value=\"\(escape(member))\"/>\n" }
                xml += "            </uniquenessConstraint>\n"
            }
            xml += "        </uniquenessConstraints>\n"
        }
        for index in entity.indexes {
            xml += "        <fetchIndex name=\"\(escape(index.name))\">\n"
            for element in index.elements {
                let property = element.property?.name ?? element.propertyName ?? ""
                let type = element.collationType == .rTree ? "RTree" : "Binary"
                xml += "            <fetchIndexElement \(list([("property", property), ("type", type), ("order", element.isAscending ? "ascending" : "descending")]))/>\n"
            }
            xml += "        </fetchIndex>\n"
        }
        xml += userInfoElement(entity.userInfo, indent: "        ")
        return xml + "    </entity>\n"
    }

    /// The settings every property has.
    private static func common(_ property: NSPropertyDescription) -> [(String, String)] {
        var attributes = [("name", property.name)]
        if property.isOptional { attributes.append(("optional", "YES")) }
        if property.isTransient, !(property is NSFetchedPropertyDescription) { attributes.append(("transient", "YES")) }
        if property.isIndexed { attributes.append(("indexed", "YES")) }
        // Not Xcode's (its editor has no such setting); the loader reads it, the hash needs it.
        if property.isReadOnly, !(property is NSDerivedAttributeDescription) { attributes.append(("readOnly", "YES")) }
        if let renaming = property.renamingIdentifier { attributes.append(("elementID", renaming)) }
        if let modifier = property.versionHashModifier { attributes.append(("versionHashModifier", modifier)) }
        return attributes
    }

    private static func attributeElement(
        _ attribute: NSAttributeDescription, compositeName: String, composites: inout [(name: String, elements: [NSAttributeDescription])]
    ) -> String {
        var attributes = common(attribute)
        attributes.append(("attributeType", attribute.attributeType.xcodeName))
        if let text = defaultValueText(attribute) {
            attributes.append((attribute.attributeType == .dateAttributeType ? "defaultDateTimeInterval" : "defaultValueString", text))
        }
        let isDate = attribute.attributeType == .dateAttributeType
        // (An infinite bound, possible in code only, bounds nothing.)
        if let minimum = attribute.rules.minimum, minimum.isFinite { attributes.append((isDate ? "minDateTimeInterval" : "minValueString", number(minimum))) }
        if let maximum = attribute.rules.maximum, maximum.isFinite { attributes.append((isDate ? "maxDateTimeInterval" : "maxValueString", number(maximum))) }
        if let pattern = attribute.rules.pattern { attributes.append(("regularExpressionString", pattern)) }
        if let transformer = attribute.valueTransformerName { attributes.append(("valueTransformerName", transformer)) }
        if let className = attribute.attributeValueClassName { attributes.append(("customClassName", className)) }
        if attribute.allowsExternalBinaryDataStorage { attributes.append(("allowsExternalBinaryDataStorage", "YES")) }
        if attribute.preservesValueInHistoryOnDeletion { attributes.append(("preserveAfterDeletion", "YES")) }
        if let derived = attribute as? NSDerivedAttributeDescription, let expression = derived.derivationExpression {
            attributes += [("derived", "YES"), ("derivationExpression", PredicateFormatter.format(expression))]
        }
        if let composite = attribute as? NSCompositeAttributeDescription {
            attributes.append(("composite", compositeName))
            composites.append((compositeName, composite.elements))
        }
        let info = userInfoElement(attribute.userInfo, indent: "            ")
        return info.isEmpty ? "<attribute \(list(attributes))/>" : "<attribute \(list(attributes))>\n\(info)        </attribute>"
    }

    private static func relationshipElement(_ relationship: NSRelationshipDescription) -> String {
        var attributes = common(relationship)
        if relationship.isToMany { attributes.append(("toMany", "YES")) }
        if relationship.maxCount != 0 { attributes.append(("maxCount", "\(relationship.maxCount)")) }
        if relationship.minCount != 0 { attributes.append(("minCount", "\(relationship.minCount)")) }
        if relationship.isOrdered { attributes.append(("ordered", "YES")) }
        attributes.append(("deletionRule", relationship.deleteRule.xcodeName))
        attributes.append(("destinationEntity", relationship.destinationEntity?.name ?? relationship.destinationEntityName ?? ""))
        if let inverse = relationship.inverseRelationship {
            attributes.append(("inverseName", inverse.name))
            attributes.append(("inverseEntity", inverse.entity?.name ?? ""))
        } else if let inverseName = relationship.inverseRelationshipName {
            attributes.append(("inverseName", inverseName))
        }
        let info = userInfoElement(relationship.userInfo, indent: "            ")
        return info.isEmpty ? "<relationship \(list(attributes))/>" : "<relationship \(list(attributes))>\n\(info)        </relationship>"
    }

    private static func fetchedPropertyElement(_ property: NSFetchedPropertyDescription) -> String {
        var xml = "        <fetchedProperty \(list(common(property)))>\n"
        if let request = property.fetchRequest {
            var attributes = [("name", "fetchedPropertyFetchRequest"), ("entity", request.entityName ?? request.entity?.name ?? "")]
            if let predicate = request.predicate { attributes.append(("predicateString", PredicateFormatter.format(predicate))) }
            if request.fetchLimit > 0 { attributes.append(("fetchLimit", "\(request.fetchLimit)")) }
            xml += "            <fetchRequest \(list(attributes))/>\n"
        }
        xml += userInfoElement(property.userInfo, indent: "            ")
        return xml + "        </fetchedProperty>\n"
    }

    private static func userInfoElement(_ info: [AnyHashable: Any]?, indent: String) -> String {
        guard let info, !info.isEmpty else { return "" }
        var xml = indent + "<userInfo>\n"
        for (key, value) in info.map({ ("\($0.key.base)", "\($0.value)") }).sorted(by: { $0.0 < $1.0 }) {
            xml += indent + "    <entry key=\"\(escape(key))\" value=\"\(escape(value))\"/>\n"
        }
        return xml + indent + "</userInfo>\n"
    }

    /// A default value as Xcode writes it: numbers and strings as text, Booleans `YES`/`NO`,
    /// dates in seconds since 2001; nil for none or one Xcode cannot express.
    private static func defaultValueText(_ attribute: NSAttributeDescription) -> String? {
        guard let value = attribute.defaultValue else { return nil }
        switch value {
        case let date as Date: return number(date.timeIntervalSinceReferenceDate)
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let text as String: return text
        case let number as NSNumber where attribute.attributeType == .booleanAttributeType: return number.boolValue ? "YES" : "NO"
        // (Before `Bool`: on Linux every number casts to `Bool`.)
        case let number as NSNumber: return number.stringValue
        case let flag as Bool: return flag ? "YES" : "NO"
        default: return nil
        }
    }

    /// A bound without a needless `.0`.
    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
    }

    private static func list(_ attributes: [(String, String)]) -> String {
        attributes.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: " ")
    }

    /// Text safe inside a double-quoted XML attribute.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            case "\t": result += "&#9;"
            // Other control characters stay, for `contents(of:)` to refuse.
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
