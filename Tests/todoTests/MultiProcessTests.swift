import Foundation
import Testing

/// Several `todo` processes on one store, as an app and its extension or a server's workers
/// share one: writers wait for each other, readers are not blocked, and nothing is lost.
@Suite struct MultiProcessTests {
    @Test func fourProcessesWritingAndReadingOneStoreLoseNothing() throws {
        let sandbox = try TodoSandbox()
        #expect(try sandbox.run("add", "seed").status == 0)
        let writers = 4
        let perWriter = 200
        // 20 rounds each: a save every 10 items. All started before any is waited for, so that
        // they really run at once.
        let store = ["--store", sandbox.store.path]
        let writing = try (0..<writers).map { _ in
            try sandbox.startTodo(["populate", "--count", "\(perWriter)", "--batch", "\(perWriter / 20)"] + store)
        }
        let reading = try (0..<writers).map { _ in try sandbox.startTodo(["stats"] + store) }
        let results = try (writing + reading).map { try $0.finish() }
        for result in results {
            #expect(result.status == 0, "\(result.stderr)")
        }
        let stats = try sandbox.run("stats")
        #expect(stats.lines.first == "items:   \(1 + writers * perWriter)", "\(stats.stdout)")
    }

    /// Two processes creating the same new store at once both end up using one valid store.
    @Test func twoProcessesCreatingOneStoreBothSucceed() throws {
        let sandbox = try TodoSandbox()
        for round in 0..<10 {
            let store = sandbox.folder.appendingPathComponent("Created-\(round).sqlite").path
            let started = try ["first", "second"].map { try sandbox.startTodo(["add", $0, "--store", store]) }
            let results = try started.map { try $0.finish() }
            for result in results {
                #expect(result.status == 0, "round \(round): \(result.stderr)")
            }
            let listed = try sandbox.runTodo(["list", "--store", store]).lines.map { $0.split(separator: " ").last.map(String.init) ?? "" }
            #expect(listed.sorted() == ["first", "second"], "round \(round)")
        }
    }
}
