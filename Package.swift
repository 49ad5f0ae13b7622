// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "OpenCoreData",
    // Synchronization's Mutex sets the floor on Apple platforms; on Linux, Windows and Android any
    // Swift 6.1 toolchain builds it.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        // The PostgreSQL store and its connections (postgres-nio): a product of its own, so that an
        // app that keeps its data in SQLite builds none of it, nor NIO.
        .library(name: "OpenCoreDataPostgreSQL", targets: ["OpenCoreDataPostgreSQL"]),
        // For targets with `@NSManaged` subclasses: supplies their accessors off Apple platforms.
        .plugin(name: "ManagedObjectCodegen", targets: ["ManagedObjectCodegen"]),
        .executable(name: "todo", targets: ["todo"]),
        // SwiftData's API (`@Model`, `Schema`, …) on OpenCoreData, in Core Data's file format.
        .library(name: "OpenSwiftData", targets: ["OpenSwiftData"]),
        // Reads any Core Data or SwiftData store without its model; nothing of it links into apps.
        .executable(name: "coredata-inspect", targets: ["coredata-inspect"]),
        // The to-do app again, written against SwiftData's API.
        .executable(name: "todo-swiftdata", targets: ["todo-swiftdata"]),
    ],
    // PostgreSQL: the OpenCoreDataPostgreSQL product's connections (postgres-nio). On by default;
    // without it the product is empty and NIO is not built (CI's thread-sanitizer build, which
    // runs no PostgreSQL test, leaves it out).
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgreSQL store's connections, through postgres-nio."),
        .default(enabledTraits: ["PostgreSQL"]),
    ],
    dependencies: [
        // SQLite access: WAL pool with one writer and concurrent readers (docs/design.md). A range,
        // so that an app that depends on another GRDB 7 release still resolves.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // SHA-256 / SHA-512 for Core Data's version hashes and metadata digests.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        // SQL logging (`-com.apple.CoreData.SQLDebug`): the server ecosystem's logging API, so that
        // an app routes the store's statements to whatever backend it already bootstrapped.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // The `todo` command-line program.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        // `swift package generate-documentation`: builds the DocC catalog (CI checks it has no
        // warnings). A command plugin only: nothing of it links into the library.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // The code generator reads a target's sources to find its `@NSManaged` declarations:
        // swift-syntax is the compiler's own parser. A range, for apps on other 6xx releases.
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
        // The PostgreSQL store's wire protocol: the Swift server ecosystem's maintained client
        // (TLS, SCRAM authentication, LISTEN/NOTIFY), used by the OpenCoreDataPostgreSQL product only.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        // Named by the PostgreSQL product, which builds on them: postgres-nio brings them already.
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
    ],
    targets: [
        // zlib, the system's: a store's model cache (Z_MODELCACHE) is a raw DEFLATE stream, and
        // Foundation on Linux has no decompression API. Debian: zlib1g-dev.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // The Swift runtime's conditional retain and unowned counts, which Swift code may not name:
        // the context's registry holds objects weakly without a side table each, and so does a
        // SwiftData model's managed object its model.
        .target(name: "CSwiftRetain"),
        .target(
            name: "OpenCoreData",
            dependencies: [
                // Not on Windows, which has no system zlib: stores there migrate without a cache.
                .target(name: "CZlib", condition: .when(platforms: [.linux, .android, .macOS, .iOS, .tvOS, .watchOS, .visionOS, .macCatalyst])),
                "CSwiftRetain",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The tutorials' to-do app written with SwiftData's API (`@Model`, `@ModelActor`,
        // `#Predicate`), on OpenSwiftData.
        .executableTarget(
            name: "todo-swiftdata",
            dependencies: ["OpenSwiftData", "OpenCoreData", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "todo-swiftdataTests", dependencies: ["PostgreSQLScratchServer"]),
        .executableTarget(
            name: "todo",
            dependencies: [
                "OpenCoreData",
                // `--store postgres://…`: one list shared by several machines.
                "OpenCoreDataPostgreSQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Done.xcdatamodeld")],
            // Xcode's "Class Definition" code generation for the model's TSPItem.
            plugins: ["ManagedObjectCodegen"]
        ),
        // SwiftData's `@Model` and its property markers: a compiler plugin on swift-syntax, the
        // compiler's own syntax library (the only way to write a macro).
        .macro(
            name: "OpenSwiftDataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        .target(name: "OpenSwiftData", dependencies: ["OpenCoreData", "OpenSwiftDataMacros", "CSwiftRetain"]),
        // The macro's expansions and diagnostics, with swift-syntax's own expansion assertions.
        .testTarget(
            name: "OpenSwiftDataMacrosTests",
            dependencies: [
                "OpenSwiftDataMacros",
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
        // Written against SwiftData's API only, as an app would be.
        .testTarget(
            name: "OpenSwiftDataTests",
            // The PostgreSQL product linked (never named) and its scratch server: a `postgres://`
            // configuration, as an app that links the product writes it.
            dependencies: [
                "OpenSwiftData", "OpenCoreData", "OpenCoreDataPostgreSQL", "PostgreSQLScratchServer",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // `coredata-inspect`: a store's entities, objects, history, metadata and model, from the
        // model the store caches or from its tables.
        .executableTarget(
            name: "coredata-inspect",
            dependencies: [
                "OpenCoreData",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // Whether the copy it reads has history tables.
                .product(name: "GRDB", package: "GRDB.swift"),
                // To keep the library's log of rows it cannot read off the one-line error output.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The PostgreSQL store, on the package-visible store contract of OpenCoreData (which
        // knows nothing of PostgreSQL), and its connections through postgres-nio (the trait).
        .target(
            name: "OpenCoreDataPostgreSQL",
            dependencies: [
                "OpenCoreData",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                // postgres-nio's own foundations, used by name: the event loops it runs on, TLS.
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A throwaway PostgreSQL server (initdb, pg_ctl) for the tests and, through a symbolic link,
        // the PostgreSQL benchmark in Benchmarks/.
        .target(name: "PostgreSQLScratchServer", path: "Tests/PostgreSQLScratchServer"),
        // What the managed-object code generator needs that is not source parsing: Swift's symbol
        // mangling for the accessors `@NSManaged` leaves undefined on Linux (issue 21). Crypto:
        // the MD5 the compiler mangles into a private declaration's name.
        .target(name: "ManagedObjectCodegenCore", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // The scratch server's target also holds SpawnedProgram, how every test starts a program.
        .testTarget(name: "ManagedObjectCodegenCoreTests", dependencies: ["ManagedObjectCodegenCore", "PostgreSQLScratchServer"]),
        // The plugin's tool: finds `@NSManaged` declarations and writes their accessors.
        .executableTarget(
            name: "managed-object-codegen",
            dependencies: [
                "ManagedObjectCodegenCore",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        .plugin(name: "ManagedObjectCodegen", capability: .buildTool(), dependencies: ["managed-object-codegen"]),
        // One app instance of the PostgreSQL store's multi-process test, run three at a time.
        .executableTarget(name: "postgresql-worker", dependencies: ["OpenCoreData", "OpenCoreDataPostgreSQL"], path: "Tests/PostgreSQLWorker"),
        // A target holding a model, with the plugin: Xcode's generated classes on Linux.
        .testTarget(
            name: "GeneratedClassesTests",
            dependencies: ["OpenCoreData"],
            resources: [.copy("Shop.xcdatamodeld")],
            plugins: ["ManagedObjectCodegen"]
        ),
        // Runs the built `todo` program; `swift test` builds every product, `todo` among them,
        // before it runs the tests.
        .testTarget(
            name: "todoTests",
            // GRDB: the crash-consistency suite checks the files the killed program left with
            // SQLite's own integrity check. The scratch server: `todo --store postgres://…`.
            dependencies: ["OpenCoreData", "PostgreSQLScratchServer", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Custom stores (a key-value NSIncrementalStore, a JSON-file NSAtomicStore) written against
        // the public API only, as an app or a library writes one; the conformance suite runs on
        // them too.
        .target(name: "CustomStores", dependencies: ["OpenCoreData"], path: "Tests/CustomStores"),
        .testTarget(name: "CustomStoreTests", dependencies: ["CustomStores", "OpenCoreData"]),
        // The fuzz tests' deterministic generator and store-file damage, shared by the library's
        // store-opening fuzz test and the inspector's hostile-file test.
        .target(name: "FuzzSupport", path: "Tests/FuzzSupport"),
        // Runs the built `coredata-inspect` on Apple's stores, stores written here, and damaged
        // files. GRDB: to make stores without a model cache and other damaged files.
        .testTarget(
            name: "coredata-inspectTests",
            dependencies: ["OpenCoreData", "PostgreSQLScratchServer", "FuzzSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "OpenCoreDataTests",
            dependencies: [
                "OpenCoreData",
                "OpenCoreDataPostgreSQL",
                "PostgreSQLScratchServer",
                "FuzzSupport",
                "CustomStores",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The `@NSManaged` subclasses of ManagedPropertyTests get their accessors from it.
            plugins: ["ManagedObjectCodegen"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
