import Foundation
import GRDB
import Testing

/// Files a user (or an attacker) may put where the store goes, under every kind of command: the
/// program never crashes, a command either works or fails with one `Error:` line, and a failure
/// leaves the file's bytes as they were and no new file beside it.
@Suite struct HostileFileTests {
    /// A file to put at the store's path, made in `folder` at `path`.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let make: @Sendable (_ path: String, _ folder: URL) throws -> Void
    }

    /// A real store with three items, made by the program itself.
    private static func store(_ path: String) throws {
        let sandbox = try TodoSandbox()
        _ = try sandbox.runTodo(["add", "a", "b", "c", "--store", path])
    }

    private static func sql(_ path: String, _ statements: String...) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in for statement in statements { try db.execute(sql: statement) } }
        try queue.close()
    }

    static let cases: [Hostile] = [
        Hostile(testDescription: "empty file") { path, _ in try Data().write(to: URL(fileURLWithPath: path)) },
        Hostile(testDescription: "text") { path, _ in try Data("milk, eggs\n".utf8).write(to: URL(fileURLWithPath: path)) },
        Hostile(testDescription: "truncated store") { path, _ in
            try store(path)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            try data.prefix(data.count / 2 + 100).write(to: URL(fileURLWithPath: path))
        },
        Hostile(testDescription: "flipped bytes") { path, _ in
            try store(path)
            var data = try Data(contentsOf: URL(fileURLWithPath: path))
            for offset in stride(from: 100, to: data.count, by: 97) { data[offset] ^= 0xFF }
            try data.write(to: URL(fileURLWithPath: path))
        },
        Hostile(testDescription: "foreign SQLite") { path, _ in try sql(path, "CREATE TABLE notes(body TEXT)", "INSERT INTO notes VALUES ('x')") },
        Hostile(testDescription: "garbage metadata") { path, _ in
            try store(path)
            try sql(path, "UPDATE Z_METADATA SET Z_PLIST = x'00010203'")
        },
        Hostile(testDescription: "metadata table empty") { path, _ in
            try store(path)
            try sql(path, "DELETE FROM Z_METADATA")
        },
        Hostile(testDescription: "Z_MAX at Int64.max") { path, _ in
            try store(path)
            try sql(path, "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807")
        },
        Hostile(testDescription: "primary keys at the limits") { path, _ in
            try store(path)
            try sql(path, "UPDATE ZTSPITEM SET Z_PK = -9223372036854775808 WHERE Z_PK = 1", "UPDATE ZTSPITEM SET Z_PK = 9223372036854775807 WHERE Z_PK = 3")
        },
        Hostile(testDescription: "a REAL where an integer goes") { path, _ in
            try store(path)
            try sql(path, "UPDATE ZTSPITEM SET ZDONE = 1e300, Z_OPT = 'text'")
        },
        Hostile(testDescription: "read-only store") { path, _ in
            try store(path)
            chmod(path, 0o444)
        },
        Hostile(testDescription: "read-only folder") { path, folder in
            try store(path)
            chmod(folder.path, 0o555)
        },
        Hostile(testDescription: "directory") { path, _ in try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) },
    ]

    /// Every file in `folder` with its bytes (a directory counts by name).
    private func contents(of folder: URL) throws -> [String: Data?] {
        var result: [String: Data?] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix("stdout-") && !name.hasPrefix("stderr-") {
            let path = folder.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            result[name] = isDirectory.boolValue ? nil : try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return result
    }

    /// Every command that opens the store.
    static let commands = [
        ["list"], ["add", "x"], ["check-all"], ["clear-done"], ["stats"], ["check", "1"], ["uncheck", "1"], ["delete", "1"],
        ["fetch"], ["populate", "--count", "3"], ["populate", "--count", "3", "--batch-insert"],
    ]

    @Test(arguments: cases, commands)
    func aHostileFileGivesAClearErrorOrWorksAndNeverCrashes(hostile: Hostile, command: [String]) throws {
        let sandbox = try TodoSandbox()
        let folder = sandbox.folder.appendingPathComponent("store", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("Done.sqlite").path
        try hostile.make(path, folder)
        // Folded into one file, as a user would hand it over.
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let before = try contents(of: folder)
        let result = try sandbox.runTodo(command + ["--store", path])
        defer {
            chmod(path, 0o644)
            chmod(folder.path, 0o755)
        }
        #expect(result.status == 0 || result.status == 1, "\(hostile.testDescription), \(command): status \(result.status) (a crash?), \(result.stderr)")
        if result.status != 0 {
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("Error: "), "\(hostile.testDescription), \(command): \(result.stderr)")
            // Nothing changed, nothing left beside it: a store that opened and failed on its data
            // (keys exhausted, values out of range) included, whose -wal and -shm go when it closes.
            let after = try contents(of: folder)
            #expect(after.mapValues { $0 } == before.mapValues { $0 }, "\(hostile.testDescription), \(command): files \(before.keys.sorted()) → \(after.keys.sorted())")
        }
    }
}
