// swift-tools-version:6.1
import PackageDescription

// The benchmark programs (docs/performance.md), a package of their own: what they compare with
// (GRDB's record API, raw postgres-nio, Fluent) costs an app that depends on OpenCoreData nothing,
// not even resolving. `swift run -c release --package-path Benchmarks bench`.
let package = Package(
    name: "OpenCoreDataBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    traits: [
        // Off by default: Fluent with its drivers is minutes of building that CI's smoke run does
        // not need. `--traits FluentComparison` for the table in docs/performance.md.
        .trait(name: "FluentComparison", description: "Fluent models in the PostgreSQL benchmark, the ORM to compare with."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        // What is measured: the package one directory up, with its PostgreSQL store.
        .package(name: "OpenCoreData", path: ".."),
        // The SQLite peers: GRDB's record and row APIs, and raw SQLite through GRDB's module.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The programs' options.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        // The PostgreSQL peers: raw postgres-nio on the event loops it runs on, and Fluent.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/vapor/fluent-kit", from: "1.52.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", from: "2.14.0"),
    ],
    targets: [
        // The SQLite store against raw SQLite and GRDB: `swift run -c release bench`.
        .executableTarget(
            name: "bench",
            dependencies: [
                "BenchmarkSupport",
                "CAllocationCount",
                .product(name: "OpenCoreData", package: "OpenCoreData"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The model is read by the code generator only (the store's model is built in code,
            // with the same entity), which makes the typed TSPItem class, as Xcode would.
            exclude: ["TSPItem.xcdatamodeld"],
            plugins: [.plugin(name: "ManagedObjectCodegen", package: "OpenCoreData")]
        ),
        // OpenSwiftData against OpenCoreData's generated classes and raw SQLite (issue 42):
        // `swift run -c release bench-swiftdata`.
        .executableTarget(
            name: "bench-swiftdata",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "OpenCoreData", package: "OpenCoreData"),
                .product(name: "OpenSwiftData", package: "OpenCoreData"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["TSPItem.xcdatamodeld"],
            plugins: [.plugin(name: "ManagedObjectCodegen", package: "OpenCoreData")]
        ),
        // The PostgreSQL store against raw postgres-nio and Fluent (issue 24):
        // `swift run -c release --traits FluentComparison bench-postgresql`.
        .executableTarget(
            name: "bench-postgresql",
            dependencies: [
                "BenchmarkSupport",
                "BenchScratchServer",
                .product(name: "OpenCoreData", package: "OpenCoreData"),
                .product(name: "OpenCoreDataPostgreSQL", package: "OpenCoreData"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "FluentKit", package: "fluent-kit", condition: .when(traits: ["FluentComparison"])),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver", condition: .when(traits: ["FluentComparison"])),
            ]
        ),
        // What both programs share: the data set, heap figures, medians.
        .target(
            name: "BenchmarkSupport",
            dependencies: ["CHeapStats", .product(name: "OpenCoreData", package: "OpenCoreData"), .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // glibc's mallinfo2, which Swift's Glibc module does not export: bytes in use on the heap.
        .target(name: "CHeapStats"),
        // The malloc family in front of glibc's, counting allocations while asked: `bench` only,
        // so that the other programs keep glibc's own.
        .target(name: "CAllocationCount"),
        // The tests' throwaway PostgreSQL server (initdb, pg_ctl), the same sources through a
        // symbolic link: a test-only target of the root package is no product to depend on.
        .target(name: "BenchScratchServer"),
    ],
    swiftLanguageModes: [.v6]
)
