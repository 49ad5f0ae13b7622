import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty(index)`, which `@Model` puts on each persisted `var`: turns the stored
/// property into one whose value lives in the model's backing (the model until it is inserted,
/// its managed object after), with Observation's access and mutation calls around it. Its
/// initializer accessor initializes the `_name` storage `@Model` declares beside it.
public struct PersistedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let (name, spelled) = property(declaration) else { return [] }
        let index = indexArgument(node)
        return [
            """
            @storageRestrictions(accesses: persistentBackingData, initializes: _\(raw: name))
            init(initialValue) {
                persistentBackingData._initialize(key: "\(raw: name)", to: initialValue)
                _\(raw: name) = OpenSwiftData._PersistedStorage()
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \\.\(raw: spelled))
                return self._persistedValue(index: \(raw: index), key: "\(raw: name)")
            }
            """,
            """
            set {
                _$observationRegistrar.withMutation(of: self, keyPath: \\.\(raw: spelled)) {
                    self._setPersistedValue(newValue, index: \(raw: index), key: "\(raw: name)")
                }
            }
            """,
        ]
    }

    /// The property's name (without backticks) and its spelling.
    private static func property(_ declaration: some DeclSyntaxProtocol) -> (String, String)? {
        guard let variable = declaration.as(VariableDeclSyntax.self), variable.bindings.count == 1,
            let pattern = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        let spelled = pattern.identifier.text
        let name = spelled.hasPrefix("`") && spelled.hasSuffix("`") && spelled.count > 1 ? String(spelled.dropFirst().dropLast()) : spelled
        return (name, spelled)
    }

    private static func indexArgument(_ node: AttributeSyntax) -> String {
        guard case .argumentList(let list)? = node.arguments, let first = list.first,
            let literal = first.expression.as(IntegerLiteralExprSyntax.self)
        else { return "-1" }
        return literal.literal.text
    }
}
