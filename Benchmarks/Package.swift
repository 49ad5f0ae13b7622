// swift-tools-version:6.1
import PackageDescription

// The benchmark suite (issue 4) lives in its own package so that users of OpenCoreData never build
// its dependencies. Run it with `swift run -c release --package-path Benchmarks bench`.
let package = Package(
    name: "OpenCoreDataBenchmarks",
    dependencies: [
        // The library under measurement.
        .package(name: "OpenCoreData", path: ".."),
        // The GRDB records baseline, and raw sqlite3 C calls through GRDBSQLite (the system SQLite
        // the library links too, so all three ways run on the same SQLite).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The `bench` command line.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "bench",
            dependencies: [
                "CHeapStats",
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
        // glibc's mallinfo2, which Swift's Glibc module does not export: bytes in use on the heap.
        .target(name: "CHeapStats"),
    ],
    swiftLanguageModes: [.v6]
)
