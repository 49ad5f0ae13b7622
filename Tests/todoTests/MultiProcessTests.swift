import Foundation
import Testing

/// Several `todo` processes on one store, as an app and its extension or a server's workers
/// share one: writers wait for each other, readers are not blocked, and nothing is lost.
@Suite struct MultiProcessTests {
    @Test func fourProcessesWritingAndReadingOneStoreLoseNothing() async throws {
        let sandbox = try TodoSandbox()
        #expect(try sandbox.run("add", "seed").status == 0)
        let writers = 4
        let perWriter = 200
        // 20 rounds each: a save every 10 items.
        let results = try await withThrowingTaskGroup(of: TodoResult.self) { group in
            for _ in 0..<writers {
                group.addTask { try sandbox.run("populate", "--count", "\(perWriter)", "--batch", "\(perWriter / 20)") }
            }
            for _ in 0..<writers {
                group.addTask { try sandbox.run("stats") }
            }
            var results: [TodoResult] = []
            for try await result in group { results.append(result) }
            return results
        }
        for result in results {
            #expect(result.status == 0, "\(result.stderr)")
        }
        let stats = try sandbox.run("stats")
        #expect(stats.lines.first == "items:   \(1 + writers * perWriter)", "\(stats.stdout)")
    }

    /// Two processes creating the same new store at once both end up using one valid store.
    @Test func twoProcessesCreatingOneStoreBothSucceed() async throws {
        let sandbox = try TodoSandbox()
        for round in 0..<10 {
            let store = sandbox.folder.appendingPathComponent("Created-\(round).sqlite").path
            let results = try await withThrowingTaskGroup(of: TodoResult.self) { group in
                for name in ["first", "second"] {
                    group.addTask { try sandbox.runTodo(["add", name, "--store", store]) }
                }
                var results: [TodoResult] = []
                for try await result in group { results.append(result) }
                return results
            }
            for result in results {
                #expect(result.status == 0, "round \(round): \(result.stderr)")
            }
            let listed = try sandbox.runTodo(["list", "--store", store]).lines.map { $0.split(separator: " ").last.map(String.init) ?? "" }
            #expect(listed.sorted() == ["first", "second"], "round \(round)")
        }
    }
}
