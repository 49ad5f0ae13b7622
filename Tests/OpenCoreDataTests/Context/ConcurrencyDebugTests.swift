import Foundation
import PostgreSQLScratchServer
import Testing
@testable import OpenCoreData

/// `-com.apple.CoreData.ConcurrencyDebug 1` / `OPENCOREDATA_CONCURRENCY_DEBUG=1` stops a program that
/// touches an object off its context's queue. The violation runs in a child process (this test
/// binary, filtered to the entry point below) because it must stop that process.
@Suite struct ConcurrencyDebugTests {
    static let childMarker = "OPENCOREDATA_TEST_CONCURRENCY_VIOLATION"

    @Test func debugFlagStopsAChildThatTouchesAnObjectOffItsQueue() throws {
        let directory = TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["OPENCOREDATA_CONCURRENCY_DEBUG"] = "1"
        environment[Self.childMarker] = "1"
        let errors = directory.file("errors").path
        let child = try SpawnedProgram.start(
            [CommandLine.arguments[0], "--testing-library", "swift-testing", "--filter", "violatingChildProcessEntryPoint"],
            environment: environment, stdout: directory.file("output").path, stderr: errors)
        let status = child.wait()
        let output = String(decoding: FileManager.default.contents(atPath: errors) ?? Data(), as: UTF8.self)
        #expect(status != 0)
        #expect(output.contains("CoreData concurrency violation: value(forKey: \"name\")"))
        #expect(output.contains("TSPItem"))
        #expect(output.contains("'debugged'"))
    }

    /// Only runs inside the child process started above.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[ConcurrencyDebugTests.childMarker] == "1"))
    func violatingChildProcessEntryPoint() throws {
        let directory = TemporaryDirectory()
        let stack = try TestStack(model: TestModels.todo(), directory: directory)
        stack.context.name = "debugged"
        let item = stack.context.performAndWait {
            NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: stack.context)
        }
        _ = item.value(forKey: "name")
        Issue.record("The off-queue access was not stopped.")
    }
}
