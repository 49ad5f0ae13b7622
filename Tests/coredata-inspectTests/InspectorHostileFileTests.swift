import Foundation
import FuzzSupport
import GRDB
import Testing

/// Files that are not Core Data stores, or are damaged ones, under every command: the program
/// never crashes; it either reads what it can or exits with status 1 and one `Error:` line; and
/// the file and its folder stay byte for byte as they were.
@Suite struct InspectorHostileFileTests {
    struct Hostile: Sendable, CustomTestStringConvertible {
        let testDescription: String
        /// Whether every command must refuse the file (not a Core Data store at all).
        let refused: Bool
        let make: @Sendable (_ url: URL, _ sandbox: InspectorSandbox) throws -> Void
    }

    private static func sql(_ url: URL, _ statements: String...) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { db in for statement in statements { try db.execute(sql: statement) } }
        try queue.close()
    }

    private static func apple(_ url: URL) throws {
        try FileManager.default.copyItem(at: InspectorSandbox.fixtures.appendingPathComponent("SampleModel/Fixtures/SampleModel_V1.sqlite"), to: url)
    }

    static let cases: [Hostile] = [
        Hostile(testDescription: "empty file", refused: true) { url, _ in try Data().write(to: url) },
        Hostile(testDescription: "text", refused: true) { url, _ in try Data("milk, eggs\n".utf8).write(to: url) },
        Hostile(testDescription: "SQLite header, garbage after", refused: true) { url, _ in
            try (Data("SQLite format 3\0".utf8) + Data(repeating: 0xA5, count: 8192)).write(to: url)
        },
        Hostile(testDescription: "foreign SQLite", refused: true) { url, _ in try sql(url, "CREATE TABLE notes(body TEXT)", "INSERT INTO notes VALUES ('x')") },
        Hostile(testDescription: "metadata not a property list", refused: true) { url, _ in
            try apple(url)
            try sql(url, "UPDATE Z_METADATA SET Z_PLIST = x'00010203'")
        },
        Hostile(testDescription: "metadata table empty", refused: true) { url, _ in
            try apple(url)
            try sql(url, "DELETE FROM Z_METADATA")
        },
        Hostile(testDescription: "truncated store", refused: false) { url, _ in
            try apple(url)
            let data = try Data(contentsOf: url)
            try data.prefix(data.count / 2 + 100).write(to: url)
        },
        Hostile(testDescription: "damaged model cache", refused: false) { url, _ in
            try apple(url)
            try sql(url, "UPDATE Z_MODELCACHE SET Z_CONTENT = randomblob(3000)")
        },
        Hostile(testDescription: "Z_PRIMARYKEY cycle and no cache", refused: false) { url, _ in
            try apple(url)
            try sql(url, "DELETE FROM Z_MODELCACHE", "UPDATE Z_PRIMARYKEY SET Z_SUPER = Z_ENT % 3 + 1")
        },
        Hostile(testDescription: "entity names that are no names, no cache", refused: false) { url, _ in
            try apple(url)
            try sql(url, "DELETE FROM Z_MODELCACHE", "UPDATE Z_PRIMARYKEY SET Z_NAME = '../' || Z_NAME || ' 💥'")
        },
        Hostile(testDescription: "values of every wrong type", refused: false) { url, _ in
            try apple(url)
            try sql(
                url, "UPDATE ZCAR SET ZMAKER = x'FFFE', ZOWNER = 'text', Z_OPT = -1",
                "UPDATE ZCAR SET ZNUMBERPLATE = 1e308 WHERE Z_PK = (SELECT min(Z_PK) FROM ZCAR)")
        },
    ]

    static let commands: [[String]] = [["entities"], ["dump", "Car", "--json"], ["history"], ["metadata"], ["model", "--xcdatamodel"]]

    @Test(arguments: cases)
    func hostileFilesAreRefusedOrReadAndNeverChanged(_ hostile: Hostile) throws {
        let sandbox = try InspectorSandbox()
        let url = sandbox.file("Store.sqlite")
        try hostile.make(url, sandbox)
        try expectSafe(url, sandbox: sandbox, refused: hostile.refused)
    }

    /// Mutants of Apple's stores, as the store-opening fuzz test makes them.
    @Test func mutantsOfApplesStoresAreNeverChanged() throws {
        let iterations = ProcessInfo.processInfo.environment["COREDATA_INSPECT_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 40
        var random = SplitMix64(seed: ProcessInfo.processInfo.environment["OPENCOREDATA_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_129)
        let seeds = try ["SampleModel/Fixtures/SampleModel_V1.sqlite", "SampleModel2/SampleModel2_V2.sqlite", "SampleModel3/Fixtures/SampleModel3_V1.sqlite"].map {
            Array(try Data(contentsOf: InspectorSandbox.fixtures.appendingPathComponent($0)))
        }
        for _ in 0..<iterations {
            let sandbox = try InspectorSandbox()
            let url = sandbox.file("Mutant.sqlite")
            try Data(StoreFileMutation.mutant(of: seeds[Int(random.next() % UInt64(seeds.count))], &random)).write(to: url)
            try expectSafe(url, sandbox: sandbox, refused: false)
        }
    }

    private func expectSafe(_ url: URL, sandbox: InspectorSandbox, refused: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try sandbox.snapshot(of: url)
        for command in Self.commands {
            var arguments = [command[0], url.path] + command.dropFirst()
            if command[0] == "model" { arguments.append(sandbox.file("Out.xcdatamodel").path) }
            let result = try sandbox.run(arguments)
            #expect(result.status == 0 || result.status == 1, "\(command[0]): status \(result.status) (a crash?)", sourceLocation: sourceLocation)
            if refused || result.status != 0 {
                #expect(result.status == 1, "\(command[0]) read a file that is no store", sourceLocation: sourceLocation)
                #expect(result.stdout.isEmpty, "\(command[0])", sourceLocation: sourceLocation)
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && result.stderr.hasPrefix("Error: "), "\(command[0]): \(result.stderr)", sourceLocation: sourceLocation)
            }
            try? FileManager.default.removeItem(at: sandbox.file("Out.xcdatamodel"))
            #expect(try sandbox.snapshot(of: url) == before, "\(command[0]) changed the folder", sourceLocation: sourceLocation)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.scratch.path).isEmpty, "a copy was left behind", sourceLocation: sourceLocation)
    }
}
