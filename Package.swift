// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "OpenCoreData",
    products: [
        .library(name: "OpenCoreData", targets: ["OpenCoreData"]),
        .executable(name: "done", targets: ["done"]),
    ],
    dependencies: [
        // SQLite access: WAL pool with one writer and concurrent readers (docs/design.md).
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // SHA-256 / SHA-512 for Core Data's version hashes and metadata digests.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        // The `done` command-line program.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "OpenCoreData",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "done",
            dependencies: [
                "OpenCoreData",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            resources: [.copy("Done.xcdatamodeld")]
        ),
        // Runs the built `done` program; `swift test` builds every product, `done` among them,
        // before it runs the tests.
        .testTarget(
            name: "doneTests",
            dependencies: ["OpenCoreData"]
        ),
        .testTarget(
            name: "OpenCoreDataTests",
            dependencies: [
                "OpenCoreData",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
