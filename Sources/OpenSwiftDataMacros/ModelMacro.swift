import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class a `PersistentModel`. It puts `@_PersistedProperty` on each persisted
/// `var` (every stored property not `@Transient`) and adds its `_name` storage of no size (what
/// the property's initializer accessor initializes, so that every initializer must still set the
/// property, as when it was stored); it adds the backing storage, the Observation registrar (a
/// view of the one kept with the values) and the two initializers OpenSwiftData makes models
/// with (`init(backingData:)`, `init(_materializing:)`), and lists the persisted properties in
/// `schemaMetadata` (name, key path, initial value, what `@Attribute` or `@Relationship` says),
/// from which the Core Data model is derived as SwiftData derives it.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let type = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass))
            return []
        }
        let persisted = PersistedMembers(of: type)
        for pattern in persisted.patterns {
            context.diagnose(Diagnostic(node: pattern, message: ModelDiagnostic.patternNotAName))
        }
        var entries: [String] = []
        var storage: [String] = []
        var initialized: [String] = []
        for member in persisted.members {
            entries.append(metadataEntry(for: member, typeName: type.name.text))
            if member.isLet, member.binding.initializer == nil {
                context.diagnose(Diagnostic(node: member.binding.pattern, message: ModelDiagnostic.letWithoutValue(member.name)))
            } else if member.isLet {
                context.diagnose(Diagnostic(node: member.binding.pattern, message: ModelDiagnostic.letNotReloaded(member.name)))
            } else if member.variable.bindings.count > 1 {
                context.diagnose(Diagnostic(node: member.binding.pattern, message: ModelDiagnostic.multipleBindings(member.name)))
            } else {
                storage.append("@OpenSwiftData.Transient private var _\(member.name): OpenSwiftData._PersistedStorage")
                initialized.append("_\(member.name) = OpenSwiftData._PersistedStorage()")
            }
        }
        let list = entries.isEmpty ? "[]" : "[\n" + entries.joined(separator: ",\n") + "\n]"
        var lists: [DeclSyntax] = []
        for (macro, member) in [("Unique", "_$uniquenessConstraints"), ("Index", "_$indices")] {
            let arguments = schemaLists(named: macro, in: type)
            guard !arguments.isEmpty else { continue }
            let typeName = type.name.text
            lists.append(
                "public static var \(raw: member): [[AnyKeyPath]] { ([\(raw: arguments.joined(separator: ", "))] as [[PartialKeyPath<\(raw: typeName)>]]).map { $0.map { $0 as AnyKeyPath } } }"
            )
        }
        return lists + storage.map { DeclSyntax(stringLiteral: $0) } + [
            // Unchecked exclusivity, as a managed object's state: a model is confined to its context's
            // actor, and every property read and write goes through this variable.
            "@OpenSwiftData.Transient @exclusivity(unchecked) public var persistentBackingData: OpenSwiftData._ModelBacking = .detached(for: \(raw: type.name.text).self)",
            // Computed, of no size: the registrar is kept with the model's values.
            "@OpenSwiftData.Transient private var _$observationRegistrar: OpenSwiftData._ModelObservationRegistrar { OpenSwiftData._ModelObservationRegistrar() }",
            """
            public required init(backingData: OpenSwiftData._ModelBacking) {
                \(raw: (initialized + ["persistentBackingData = backingData"]).joined(separator: "\n"))
            }
            """,
            // For a stored row: the initial backing is its managed object already (`ModelMaterialization`).
            "public required init(_materializing: OpenSwiftData._ModelMaterializing) {\(raw: initialized.map { "\n" + $0 }.joined())\n}",
            "public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] { \(raw: list) }",
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let type = declaration.as(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
            variable.bindingSpecifier.tokenKind == .keyword(.var), variable.bindings.count == 1,
            case let members = PersistedMembers(of: type), let index = members.index(of: variable)
        else { return [] }
        return ["@OpenSwiftData._PersistedProperty(\(raw: index), of: \(raw: members.members.count))"]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): OpenSwiftData.PersistentModel {}")]
    }

    /// `Schema.PropertyMetadata(name:keypath:defaultValue:metadata:)` for one property. The
    /// initial value is typed with the property's annotation, so that `[]` and `nil` have one.
    private static func metadataEntry(for member: PersistedMembers.Member, typeName: String) -> String {
        var defaultValue = "nil"
        if let initial = member.binding.initializer?.value.trimmedDescription {
            defaultValue = member.binding.typeAnnotation.map { "(\(initial)) as \($0.type.trimmedDescription)" } ?? "(\(initial))"
        }
        var metadata = "nil"
        if let attribute = PersistedMembers.marker(named: "Attribute", on: member.variable) {
            metadata = "OpenSwiftData.Schema.Attribute(\(arguments(of: attribute)))"
        } else if let relationship = PersistedMembers.marker(named: "Relationship", on: member.variable) {
            metadata = "OpenSwiftData.Schema.Relationship(\(arguments(of: relationship)))"
        }
        // A Swift identifier holds no quote or backslash; the name goes into a string literal as is.
        return "OpenSwiftData.Schema.PropertyMetadata(name: \"\(member.name)\", keypath: \\\(typeName).\(member.spelled), defaultValue: \(defaultValue), metadata: \(metadata))"
    }

    /// The arguments (each a list of key paths) of every `#Unique` or `#Index` in the class.
    private static func schemaLists(named name: String, in type: ClassDeclSyntax) -> [String] {
        type.memberBlock.members.flatMap { member -> [String] in
            guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self), expansion.macroName.text == name else { return [] }
            return expansion.arguments.map { $0.expression.trimmedDescription }
        }
    }

    private static func arguments(of attribute: AttributeSyntax) -> String {
        guard case .argumentList(let list)? = attribute.arguments else { return "" }
        return list.trimmedDescription
    }
}
