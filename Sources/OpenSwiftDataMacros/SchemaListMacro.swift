import SwiftSyntax
import SwiftSyntaxMacros

/// `#Unique` and `#Index`: markers in a model class that `@Model` reads (it writes their key
/// paths into the class's `_$uniquenessConstraints` and `_$indices`); by themselves they add
/// nothing.
public struct SchemaListMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
