import OpenSwiftDataMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@Model` writes into a class, and what it refuses at build time.
@Suite struct ModelMacroTests {
    let macros: [String: MacroSpec] = [
        "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel"]),
        "Attribute": MacroSpec(type: PropertyMarkerMacro.self),
        "Transient": MacroSpec(type: PropertyMarkerMacro.self),
    ]

    private func expect(_ source: String, _ expanded: String, diagnostics: [DiagnosticSpec] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    @Test func storedPropertiesAreListedWithTheirInitialValuesAndMarkers() {
        expect(
            """
            @Model final class Trip {
                @Attribute(.unique) var name: String
                let id = UUID()
                var stops: [Stop] = []
                @Transient var scratch = 0
                var title: String { name }
                static var count = 0
                init(name: String) { self.name = name }
            }
            """,
            """
            final class Trip {
                var name: String
                let id = UUID()
                var stops: [Stop] = []
                var scratch = 0
                var title: String { name }
                static var count = 0
                init(name: String) { self.name = name }

                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    [
                        OpenSwiftData.Schema.PropertyMetadata(name: "name", keypath: \\Trip.name, defaultValue: nil, metadata: OpenSwiftData.Schema.Attribute(.unique)),
                        OpenSwiftData.Schema.PropertyMetadata(name: "id", keypath: \\Trip.id, defaultValue: (UUID()), metadata: nil),
                        OpenSwiftData.Schema.PropertyMetadata(name: "stops", keypath: \\Trip.stops, defaultValue: ([]) as [Stop], metadata: nil)
                    ]
                }
            }

            extension Trip: OpenSwiftData.PersistentModel {
            }
            """)
    }

    @Test func aStructOrATuplePatternIsABuildError() {
        expect(
            "@Model struct Point { var x = 0 }",
            "struct Point { var x = 0 \n}",
            diagnostics: [DiagnosticSpec(message: "@Model can only be applied to a class", line: 1, column: 1)])
        expect(
            """
            @Model final class Pair {
                var (a, b) = (1, 2)
            }
            """,
            """
            final class Pair {
                var (a, b) = (1, 2)

                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    []
                }
            }

            extension Pair: OpenSwiftData.PersistentModel {
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "@Model cannot persist a property declared with a pattern; declare one name per property", line: 2, column: 9)
            ])
    }
}
