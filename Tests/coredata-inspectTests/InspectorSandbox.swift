import Foundation
import PostgreSQLScratchServer
import Testing

/// What one run of `coredata-inspect` did.
struct InspectorResult {
    let status: Int32
    let stdout: String
    let stderr: String

    /// Standard output parsed as JSON.
    func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
}

/// A fresh folder for one test, removed when the value is released. The program runs with its
/// temporary folder inside it, so that a test sees whether the program left a copy behind.
final class InspectorSandbox: Sendable {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("coredata-inspectTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// The program's temporary folder.
    var scratch: URL { folder.appendingPathComponent("tmp") }

    func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// A copy of an Apple-written fixture store, named as the original.
    func copyOfFixture(_ path: String) throws -> URL {
        let source = Self.fixtures.appendingPathComponent(path)
        let copy = file(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: copy)
        return copy
    }

    /// A copy of `store` to open through its real model, with its external-data folder, so that
    /// the store itself stays untouched.
    func referenceCopy(of store: URL) throws -> URL {
        let copy = file("reference-\(store.lastPathComponent)")
        try FileManager.default.copyItem(at: store, to: copy)
        func support(_ url: URL) -> URL {
            url.deletingLastPathComponent().appendingPathComponent("." + url.deletingPathExtension().lastPathComponent + "_SUPPORT")
        }
        if FileManager.default.fileExists(atPath: support(store).path) { try FileManager.default.copyItem(at: support(store), to: support(copy)) }
        return copy
    }

    /// Runs `coredata-inspect arguments…`.
    func run(_ arguments: String...) throws -> InspectorResult { try run(arguments) }

    func run(_ arguments: [String]) throws -> InspectorResult {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch.path
        let id = UUID().uuidString
        let out = folder.appendingPathComponent("stdout-\(id)")
        let err = folder.appendingPathComponent("stderr-\(id)")
        let program = try SpawnedProgram.start([try Self.executable().path] + arguments, environment: environment, stdout: out.path, stderr: err.path)
        let status = program.wait()
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        return InspectorResult(
            status: status, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    /// Tests/Fixtures/AppleCoreData, found from this file's path.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/AppleCoreData")

    struct NotBuilt: Error, CustomStringConvertible {
        var description: String { "coredata-inspect is not built next to the tests (swift build builds it)" }
    }

    /// The built program: `COREDATA_INSPECT_EXECUTABLE` if set, else next to the test bundle in
    /// the build products folder (swift test builds every product first).
    static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["COREDATA_INSPECT_EXECUTABLE"] { return URL(fileURLWithPath: path) }
        if let built = SpawnedProgram.builtExecutable("coredata-inspect") { return built }
        throw NotBuilt()
    }

    /// The files in the folder of `store` (names and bytes), to tell that a run changed nothing.
    func snapshot(of store: URL) throws -> [String: Data] {
        let folder = store.deletingLastPathComponent()
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where !name.hasPrefix("stdout-") && !name.hasPrefix("stderr-") && name != "tmp" && !name.contains("reference-") && !name.hasSuffix(".xcdatamodel") {
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            files[name] = isDirectory.boolValue ? Data() : try Data(contentsOf: url)
        }
        return files
    }
}
