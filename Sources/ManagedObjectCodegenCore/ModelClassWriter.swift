/// What Xcode's code generation makes of a model's entities ("Class Definition" and
/// "Category/Extension"), as Swift source, together with the `@NSManaged` declarations it holds
/// (whose accessors `ManagedAccessorWriter` supplies).
public enum ModelClassWriter {
    /// One entity of a model, as the generator reads it from the model file.
    public struct Entity: Sendable {
        public enum CodeGeneration: String, Sendable { case classDefinition = "class", category, manual }

        public let name: String
        public let className: String
        public let parentClassName: String?
        public let codeGeneration: CodeGeneration
        public let attributes: [Attribute]
        public let relationships: [Relationship]
        /// The names of the entity's own properties in the model file's order, which is the order
        /// of their slots at run time (after the superentity's).
        public let propertyNames: [String]
        public let location: SourceLocation

        /// The same entity with `attributes` in place of its own.
        public func withAttributes(_ attributes: [Attribute]) -> Entity {
            Entity(
                name: name, className: className, parentClassName: parentClassName, codeGeneration: codeGeneration,
                attributes: attributes, relationships: relationships, propertyNames: propertyNames, location: location)
        }

        public init(
            name: String, className: String, parentClassName: String?, codeGeneration: CodeGeneration,
            attributes: [Attribute], relationships: [Relationship], propertyNames: [String]? = nil, location: SourceLocation
        ) {
            self.name = name
            self.className = className
            self.parentClassName = parentClassName
            self.codeGeneration = codeGeneration
            self.attributes = attributes
            self.relationships = relationships
            self.propertyNames = propertyNames ?? attributes.map(\.name) + relationships.map(\.name)
            self.location = location
        }
    }

    public struct Attribute: Sendable {
        public let name: String
        /// Xcode's name of the type (`String`, `Integer 64`, `Transformable`…).
        public let type: String
        public let usesScalarValueType: Bool
        public let customClassName: String?
        /// The Swift type `customClassName` names, resolved by the tool against the target's
        /// sources (nil: `NSObject`, as Xcode declares a Transformable without a class).
        public let customType: SwiftType?

        public init(name: String, type: String, usesScalarValueType: Bool, customClassName: String?, customType: SwiftType? = nil) {
            self.name = name
            self.type = type
            self.usesScalarValueType = usesScalarValueType
            self.customClassName = customClassName
            self.customType = customType
        }

        /// The same attribute with `customClassName` resolved to `type`.
        public func withCustomType(_ type: SwiftType) -> Attribute {
            Attribute(name: name, type: self.type, usesScalarValueType: usesScalarValueType, customClassName: customClassName, customType: type)
        }
    }

    public struct Relationship: Sendable {
        public let name: String
        public let destinationClassName: String
        public let isToMany: Bool
        public let isOrdered: Bool

        public init(name: String, destinationClassName: String, isToMany: Bool, isOrdered: Bool) {
            self.name = name
            self.destinationClassName = destinationClassName
            self.isToMany = isToMany
            self.isOrdered = isOrdered
        }
    }

    /// Per class, its entity's property names in slot order: the superentity's first. A class
    /// that several entities name has none, as its slots differ between them.
    ///
    /// - Parameter entities: The model's entities.
    /// - Returns: Slot names by class name.
    public static func slotNames(of entities: [Entity]) -> [String: [String]] {
        let byClass = Dictionary(grouping: entities, by: \.className)
        var names: [String: [String]] = [:]
        for (className, group) in byClass where group.count == 1 {
            var chain: [Entity] = [group[0]]
            // Bounded, so that a cycle of parents in a damaged model ends.
            while let parent = chain.last!.parentClassName, chain.count <= entities.count,
                let entity = byClass[parent], entity.count == 1
            {
                chain.append(entity[0])
            }
            names[className] = chain.reversed().flatMap(\.propertyNames)
        }
        return names
    }

    /// The generated classes and extensions, and the `@NSManaged` declarations in them.
    ///
    /// - Parameters:
    ///   - entities: The model's entities; those with manual code generation are skipped.
    ///   - module: The target's module.
    /// - Returns: Source text, and the properties and methods it declares with `@NSManaged`.
    /// - Throws: `ManagedDeclarationError` for an attribute type Xcode does not generate.
    public static func source(for entities: [Entity], module: String) throws
        -> (text: String, properties: [ManagedProperty], methods: [ManagedMethod])
    {
        var text = ""
        var properties: [ManagedProperty] = []
        var methods: [ManagedMethod] = []
        for entity in entities.sorted(by: { $0.className < $1.className }) where entity.codeGeneration != .manual {
            let owner = [entity.className]
            if entity.codeGeneration == .classDefinition {
                // The class is all generated, and an extension cannot override a method: a save
                // may check its own objects against the model's rules without calling
                // `validateValue(_:forKey:)` per property. A subclass of it may override that.
                text += "\npublic class \(entity.className): \(entity.parentClassName ?? "NSManagedObject") {\n"
                text += "    override public class var _mayOverrideValidateValue: Bool { self != \(entity.className).self }\n}\n"
            }
            text += "\nextension \(entity.className) {\n"
            text += "    @nonobjc public class func fetchRequest() -> NSFetchRequest<\(entity.className)> {\n"
            text += "        NSFetchRequest<\(entity.className)>(entityName: \"\(entity.name)\")\n    }\n"
            for attribute in entity.attributes {
                let type = try swiftType(of: attribute, module: module, at: entity.location)
                text += "    @NSManaged public var \(attribute.name): \(type.source)\n"
                properties.append(ManagedProperty(location: entity.location, owner: owner, name: attribute.name, type: type, isPublic: true))
            }
            for relationship in entity.relationships {
                let destination = SwiftType.localClass(relationship.destinationClassName, in: module)
                let type: SwiftType = relationship.isToMany ? (relationship.isOrdered ? SwiftType.nsOrderedSet : SwiftType.nsSet).optional : destination.optional
                text += "    @NSManaged public var \(relationship.name): \(type.source)\n"
                properties.append(ManagedProperty(location: entity.location, owner: owner, name: relationship.name, type: type, isPublic: true))
            }
            text += "}\n"
            for relationship in entity.relationships where relationship.isToMany {
                let accessors = toManyAccessors(relationship, module: module)
                text += "\nextension \(entity.className) {\n"
                for (name, parameters) in accessors {
                    let list = parameters.map { "\($0.label ?? "_") \($0.name): \($0.type.source)" }.joined(separator: ", ")
                    text += "    @NSManaged public func \(name)(\(list))\n"
                    methods.append(ManagedMethod(location: entity.location, owner: owner, name: name, parameters: parameters, isPublic: true))
                }
                text += "}\n"
            }
            // A subentity's class inherits the conformance from its parent's.
            if entity.codeGeneration == .classDefinition, entity.parentClassName == nil {
                text += "\nextension \(entity.className): Identifiable {}\n"
            }
        }
        return (text, properties, methods)
    }

    /// The accessor methods Xcode generates for a to-many relationship.
    static func toManyAccessors(_ relationship: Relationship, module: String) -> [(String, [ManagedMethod.Parameter])] {
        let suffix = relationship.name.prefix(1).uppercased() + relationship.name.dropFirst()
        let destination = SwiftType.localClass(relationship.destinationClassName, in: module)
        let one = ManagedMethod.Parameter(label: nil, name: "value", type: destination)
        let index = ManagedMethod.Parameter(label: "at", name: "idx", type: .int)
        let indexes = ManagedMethod.Parameter(label: "at", name: "indexes", type: .nsIndexSet)
        let collection: SwiftType = relationship.isOrdered ? .nsOrderedSet : .nsSet
        var accessors: [(String, [ManagedMethod.Parameter])] = []
        if relationship.isOrdered {
            accessors += [
                ("insertInto\(suffix)", [one, index]),
                ("removeFrom\(suffix)", [index]),
                ("insertInto\(suffix)", [.init(label: nil, name: "values", type: .array(destination)), indexes]),
                ("removeFrom\(suffix)", [indexes]),
                ("replace\(suffix)", [index, .init(label: "with", name: "value", type: destination)]),
                ("replace\(suffix)", [indexes, .init(label: "with", name: "values", type: .array(destination))]),
            ]
        }
        accessors += [
            ("addTo\(suffix)", [one]),
            ("removeFrom\(suffix)", [one]),
            ("addTo\(suffix)", [.init(label: nil, name: "values", type: collection)]),
            ("removeFrom\(suffix)", [.init(label: nil, name: "values", type: collection)]),
        ]
        return accessors
    }

    /// The Swift type Xcode gives an attribute.
    static func swiftType(of attribute: Attribute, module: String, at location: SourceLocation) throws -> SwiftType {
        let scalar = attribute.usesScalarValueType
        switch attribute.type {
        case "Integer 16": return scalar ? .int16 : SwiftType.nsNumber.optional
        case "Integer 32": return scalar ? .int32 : SwiftType.nsNumber.optional
        case "Integer 64": return scalar ? .int64 : SwiftType.nsNumber.optional
        case "Double": return scalar ? .double : SwiftType.nsNumber.optional
        case "Float": return scalar ? .float : SwiftType.nsNumber.optional
        case "Boolean": return scalar ? .bool : SwiftType.nsNumber.optional
        case "Decimal": return SwiftType.nsDecimalNumber.optional
        case "String": return SwiftType.string.optional
        case "Date": return SwiftType.date.optional
        case "Binary": return SwiftType.data.optional
        case "UUID": return SwiftType.uuid.optional
        case "URI": return SwiftType.url.optional
        case "Transformable":
            // Its custom class, as the tool resolved it; NSObject, as Xcode declares one without.
            return (attribute.customType ?? SwiftType.nsObject).optional
        default:
            throw ManagedDeclarationError(location, "attribute '\(attribute.name)' has a type Xcode generates no property for: \(attribute.type)")
        }
    }
}
