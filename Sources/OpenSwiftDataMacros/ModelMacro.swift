import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class a `PersistentModel` and lists its persisted properties in
/// `schemaMetadata` (name, key path, initial value, and what `@Attribute` or `@Relationship`
/// says of it), from which the Core Data model is derived as SwiftData derives it. Every stored
/// property is persisted, `let` included, unless `@Transient`; computed properties are not.
public struct ModelMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let type = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass))
            return []
        }
        var entries: [String] = []
        for member in type.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), !isStatic(variable), marker(named: "Transient", on: variable) == nil
            else { continue }
            for binding in variable.bindings {
                if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    context.diagnose(Diagnostic(node: binding.pattern, message: ModelDiagnostic.patternNotAName))
                    continue
                }
                entries.append(metadataEntry(for: pattern, binding: binding, variable: variable, typeName: type.name.text))
            }
        }
        let list = entries.isEmpty ? "[]" : "[\n" + entries.joined(separator: ",\n") + "\n]"
        return ["public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] { \(raw: list) }"]
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
    private static func metadataEntry(
        for pattern: IdentifierPatternSyntax, binding: PatternBindingSyntax, variable: VariableDeclSyntax, typeName: String
    ) -> String {
        let spelled = pattern.identifier.text
        let name = spelled.hasPrefix("`") && spelled.hasSuffix("`") && spelled.count > 1 ? String(spelled.dropFirst().dropLast()) : spelled
        var defaultValue = "nil"
        if let initial = binding.initializer?.value.trimmedDescription {
            defaultValue = binding.typeAnnotation.map { "(\(initial)) as \($0.type.trimmedDescription)" } ?? "(\(initial))"
        }
        var metadata = "nil"
        if let attribute = marker(named: "Attribute", on: variable) {
            metadata = "OpenSwiftData.Schema.Attribute(\(arguments(of: attribute)))"
        } else if let relationship = marker(named: "Relationship", on: variable) {
            metadata = "OpenSwiftData.Schema.Relationship(\(arguments(of: relationship)))"
        }
        // A Swift identifier holds no quote or backslash; the name goes into a string literal as is.
        let literal = name
        return "OpenSwiftData.Schema.PropertyMetadata(name: \"\(literal)\", keypath: \\\(typeName).\(spelled), defaultValue: \(defaultValue), metadata: \(metadata))"
    }

    private static func arguments(of attribute: AttributeSyntax) -> String {
        guard case .argumentList(let list)? = attribute.arguments else { return "" }
        return list.trimmedDescription
    }

    /// The attribute `@name` or `@OpenSwiftData.name` on `variable`, if it has one.
    private static func marker(named name: String, on variable: VariableDeclSyntax) -> AttributeSyntax? {
        for element in variable.attributes {
            guard case .attribute(let attribute) = element else { continue }
            let spelled = attribute.attributeName.trimmedDescription
            if spelled == name || spelled.hasSuffix("." + name) { return attribute }
        }
        return nil
    }

    private static func isStatic(_ variable: VariableDeclSyntax) -> Bool {
        variable.modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    /// Whether the accessors make the property computed (a getter), not merely observed.
    private static func isComputed(_ accessors: AccessorBlockSyntax) -> Bool {
        switch accessors.accessors {
        case .getter: return true
        case .accessors(let list):
            return list.contains { [.keyword(.get), .keyword(._read), .keyword(.unsafeAddress)].contains($0.accessorSpecifier.tokenKind) }
        }
    }
}
