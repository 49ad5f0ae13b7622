import Foundation
import Testing

/// Where the store goes without `--store`.
@Suite struct StoreLocationTests {
    @Test func theDefaultStoreIsInXDGDataHome() throws {
        let sandbox = try TodoSandbox()
        let data = sandbox.folder.appendingPathComponent("data")
        let added = try sandbox.runTodo(["add", "x"], environment: ["XDG_DATA_HOME": data.path])
        #expect(added.status == 0)
        let store = data.appendingPathComponent("todo/Done.sqlite")
        #expect(FileManager.default.fileExists(atPath: store.path))
        let stats = try sandbox.runTodo(["stats"], environment: ["XDG_DATA_HOME": data.path])
        #expect(stats.lines.contains("store:   \(store.path)"))
    }

    @Test func withoutXDGDataHomeTheStoreIsInLocalShare() throws {
        let sandbox = try TodoSandbox()
        let home = sandbox.folder.appendingPathComponent("home")
        let added = try sandbox.runTodo(["add", "x"], environment: ["XDG_DATA_HOME": "", "HOME": home.path])
        #expect(added.status == 0)
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".local/share/todo/Done.sqlite").path))
    }
}
