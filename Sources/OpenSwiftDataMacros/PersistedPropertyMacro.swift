import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty(index, of: count)`, which `@Model` puts on each persisted `var`: turns the stored
/// property into one whose value lives in the model's backing (the model until it is inserted,
/// its managed object after), Observation told of each read and change by the same call (one look
/// at the backing for both). Its initializer accessor initializes the `_name` storage `@Model`
/// declares beside it.
public struct PersistedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let (name, spelled) = property(declaration) else { return [] }
        let index = integerArgument(node, at: 0)
        let count = integerArgument(node, at: 1)
        return [
            """
            @storageRestrictions(accesses: persistentBackingData, initializes: _\(raw: name))
            init(initialValue) {
                persistentBackingData._initialize(index: \(raw: index), of: \(raw: count), key: "\(raw: name)", to: initialValue)
                _\(raw: name) = OpenSwiftData._PersistedStorage()
            }
            """,
            """
            get {
                self._persistedValue(index: \(raw: index), key: "\(raw: name)", observing: \\.\(raw: spelled))
            }
            """,
            """
            set {
                self._setPersistedValue(newValue, index: \(raw: index), key: "\(raw: name)", observing: \\.\(raw: spelled))
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

    /// The integer literal at `position` among the attribute's arguments; -1 when there is none
    /// (the runtime then keeps no value for the property before its model is inserted).
    private static func integerArgument(_ node: AttributeSyntax, at position: Int) -> String {
        guard case .argumentList(let list)? = node.arguments, position < list.count,
            let literal = list[list.index(list.startIndex, offsetBy: position)].expression.as(IntegerLiteralExprSyntax.self)
        else { return "-1" }
        return literal.literal.text
    }
}
