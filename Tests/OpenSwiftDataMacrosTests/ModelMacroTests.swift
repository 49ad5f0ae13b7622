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
        "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
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
                @OpenSwiftData._PersistedProperty(0, of: 3) var name: String
                let id = UUID()
                @OpenSwiftData._PersistedProperty(2, of: 3)
                var stops: [Stop] = []
                var scratch = 0
                var title: String { name }
                static var count = 0
                init(name: String) { self.name = name }

                @OpenSwiftData.Transient private var _name: OpenSwiftData._PersistedStorage

                @OpenSwiftData.Transient private var _stops: OpenSwiftData._PersistedStorage

                @OpenSwiftData.Transient @exclusivity(unchecked) public var persistentBackingData: OpenSwiftData._ModelBacking = .detached(for: Trip.self)

                @OpenSwiftData.Transient private var _$observationRegistrar: OpenSwiftData._ModelObservationRegistrar {
                    OpenSwiftData._ModelObservationRegistrar()
                }

                public required init(backingData: OpenSwiftData._ModelBacking) {
                    _name = OpenSwiftData._PersistedStorage()
                    _stops = OpenSwiftData._PersistedStorage()
                    persistentBackingData = backingData
                }

                public required init(_materializing: OpenSwiftData._ModelMaterializing) {
                    _name = OpenSwiftData._PersistedStorage()
                    _stops = OpenSwiftData._PersistedStorage()
                }

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
            """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'let id' is saved but a fetched model gets its initial value, not the stored one; declare it 'var' to read it back",
                    line: 3, column: 9, severity: .warning)
            ])
    }

    /// A persisted property keeps its value in the backing, with Observation around it, and its
    /// initializer accessor initializes the storage `@Model` declares.
    @Test func aPersistedPropertyReadsAndWritesTheBacking() {
        expect(
            """
            final class Trip {
                @_PersistedProperty(2, of: 3) var stops: [Stop] = []
            }
            """,
            """
            final class Trip {
                var stops: [Stop] {
                    @storageRestrictions(accesses: persistentBackingData, initializes: _stops)
                    init(initialValue) {
                        persistentBackingData._initialize(index: 2, of: 3, key: "stops", to: initialValue)
                        _stops = OpenSwiftData._PersistedStorage()
                    }
                    get {
                        self._persistedValue(index: 2, key: "stops", observing: \\.stops)
                    }
                    set {
                        self._setPersistedValue(newValue, index: 2, key: "stops", observing: \\.stops)
                    }
                }
            }
            """)
    }

    @Test func aLetWithoutValueOrSeveralNamesInOneVarIsABuildError() {
        expect(
            """
            @Model final class Tag {
                let code: String
                init(code: String) { self.code = code }
            }
            """,
            """
            final class Tag {
                let code: String
                init(code: String) { self.code = code }

                @OpenSwiftData.Transient @exclusivity(unchecked) public var persistentBackingData: OpenSwiftData._ModelBacking = .detached(for: Tag.self)

                @OpenSwiftData.Transient private var _$observationRegistrar: OpenSwiftData._ModelObservationRegistrar {
                    OpenSwiftData._ModelObservationRegistrar()
                }

                public required init(backingData: OpenSwiftData._ModelBacking) {
                    persistentBackingData = backingData
                }

                public required init(_materializing: OpenSwiftData._ModelMaterializing) {
                }

                public static var schemaMetadata: [OpenSwiftData.Schema.PropertyMetadata] {
                    [
                        OpenSwiftData.Schema.PropertyMetadata(name: "code", keypath: \\Tag.code, defaultValue: nil, metadata: nil)
                    ]
                }
            }

            extension Tag: OpenSwiftData.PersistentModel {
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "@Model cannot make a fetched model's 'let code', which has no initial value; declare it 'var'", line: 2, column: 9)
            ])
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

                @OpenSwiftData.Transient @exclusivity(unchecked) public var persistentBackingData: OpenSwiftData._ModelBacking = .detached(for: Pair.self)

                @OpenSwiftData.Transient private var _$observationRegistrar: OpenSwiftData._ModelObservationRegistrar {
                    OpenSwiftData._ModelObservationRegistrar()
                }

                public required init(backingData: OpenSwiftData._ModelBacking) {
                    persistentBackingData = backingData
                }

                public required init(_materializing: OpenSwiftData._ModelMaterializing) {
                }

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
