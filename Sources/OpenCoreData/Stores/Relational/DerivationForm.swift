/// What a derived attribute's expression computes, in the forms Core Data supports
/// (`NSDerivedAttributeDescription`): worked out once from the expression, for the stores that
/// keep the value up to date.
package enum DerivationForm {
    /// A string function of a value: Core Data's `canonical:`, `uppercase:`, `lowercase:`.
    package enum StringFunction: String {
        case canonical = "canonical:", uppercase = "uppercase:", lowercase = "lowercase:"

        /// The SQL function Core Data's triggers call for it.
        package var sqlName: String {
            switch self {
            case .canonical: "NSCoreDataCanonical"
            case .uppercase: "NSCoreDataToUpper"
            case .lowercase: "NSCoreDataToLower"
            }
        }
    }

    /// An aggregate of a to-many relationship's objects.
    package enum Aggregate: String {
        case count, sum, min, max
    }

    /// One of the entity's own attributes, or a function of it (`name`, `canonical:(name)`).
    case ownAttribute(NSAttributeDescription, StringFunction?)
    /// An attribute of a to-one destination, or a function of it (`author.name`).
    case toOne(NSRelationshipDescription, NSAttributeDescription, StringFunction?)
    /// An aggregate of a to-many (`pages.@count`, `pages.@sum.number`); `attribute` is nil for a
    /// plain count.
    case toMany(NSRelationshipDescription, Aggregate, attribute: NSAttributeDescription?)
    /// The time of the save that inserted or updated the object (`now()`).
    case now

    /// The form of `attribute`'s expression on `entity`.
    ///
    /// - Throws: `NSCoreDataError` naming the attribute and what Core Data does not support.
    package init(_ attribute: NSDerivedAttributeDescription, entity: NSEntityDescription) throws {
        func unsupported(_ problem: String) -> NSError {
            CoreDataError.make(
                NSCoreDataError,
                "The model is not supported: derived attribute '\(entity.name ?? "?").\(attribute.name)' \(problem).",
                userInfo: ["derived attribute": attribute.name])
        }
        guard let expression = attribute.derivationExpression else { throw unsupported("has no derivationExpression") }
        var function: StringFunction?
        var aggregate: Aggregate?
        var path: [String]
        switch expression.storage {
        case .keyPath(let keyPath):
            path = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        case .function("now", let arguments) where arguments.isEmpty:
            self = .now
            return
        case .function(let name, let arguments) where arguments.count == 1:
            guard case .keyPath(let keyPath) = arguments[0].storage else { throw unsupported("applies \(name) to something other than a key path") }
            path = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if let string = StringFunction(rawValue: name) {
                function = string
            } else if let operation = Aggregate(rawValue: String(name.dropLast())), name.hasSuffix(":") {
                aggregate = operation
            } else {
                throw unsupported("uses the function \(name), which Core Data does not derive (canonical:, uppercase:, lowercase:, @count, @sum, @min, @max, now())")
            }
        default:
            throw unsupported("is not a key path, a function of one, or now()")
        }
        // `pages.@count`, `pages.@sum.number`.
        if let index = path.firstIndex(where: { $0.hasPrefix("@") }) {
            guard aggregate == nil, function == nil, let operation = Aggregate(rawValue: String(path[index].dropFirst())) else {
                throw unsupported("uses \(path[index]), which Core Data does not derive")
            }
            aggregate = operation
            path.remove(at: index)
        }
        guard (1...2).contains(path.count), let first = entity.propertiesByName[path[0]] else {
            throw unsupported("names a key path Core Data does not derive from (one property, or a relationship and an attribute)")
        }
        switch first {
        case let relationship as NSRelationshipDescription where relationship.isToMany:
            guard let aggregate else { throw unsupported("reads the to-many \(relationship.name) without @count, @sum, @min or @max") }
            var leaf: NSAttributeDescription?
            if path.count == 2 {
                guard let found = relationship.destinationEntity?.propertiesByName[path[1]] as? NSAttributeDescription else {
                    throw unsupported("names \(path[1]), which is no attribute of \(relationship.destinationEntity?.name ?? "?")")
                }
                leaf = found
            }
            guard aggregate == .count ? (leaf == nil || leaf!.attributeType == .booleanAttributeType) : leaf?.isNumeric == true else {
                throw unsupported("aggregates with @\(aggregate.rawValue) what Core Data can't (a count of objects or of true values, a sum, minimum or maximum of numbers)")
            }
            guard relationship.inverseRelationship.map({ !$0.isToMany }) == true || (aggregate == .count && leaf == nil) else {
                throw unsupported("aggregates a many-to-many with @\(aggregate.rawValue); Core Data derives only @count of one")
            }
            self = .toMany(relationship, aggregate, attribute: leaf)
        case let relationship as NSRelationshipDescription:
            guard aggregate == nil, path.count == 2,
                let leaf = relationship.destinationEntity?.propertiesByName[path[1]] as? NSAttributeDescription
            else { throw unsupported("reads a to-one without one attribute after it (author.name)") }
            self = .toOne(relationship, leaf, function)
        case let own as NSAttributeDescription:
            guard aggregate == nil, path.count == 1, !(own is NSDerivedAttributeDescription), !own.isTransient else {
                throw unsupported("reads \(path.joined(separator: ".")), which Core Data does not derive from")
            }
            self = .ownAttribute(own, function)
        default:
            throw unsupported("reads \(path[0]), which Core Data does not derive from")
        }
    }
}
