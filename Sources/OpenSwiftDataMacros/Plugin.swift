import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin holding OpenSwiftData's macros.
@main
struct OpenSwiftDataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ModelMacro.self, PropertyMarkerMacro.self, PersistedPropertyMacro.self, ModelActorMacro.self, SchemaListMacro.self]
}
