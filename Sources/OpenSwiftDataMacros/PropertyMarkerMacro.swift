import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute`, `@Relationship` and `@Transient`: markers that `@Model` reads on the class's
/// properties; by themselves they add nothing.
public struct PropertyMarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
