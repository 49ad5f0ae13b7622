import Testing
@testable import OpenCoreData

/// `-com.apple.CoreData.ConcurrencyDebug 1` / `OPENCOREDATA_CONCURRENCY_DEBUG=1` stops a program that
/// touches an object off its context's queue. The violation runs in a child process (this test
/// binary, filtered to the entry point below) because it must stop that process.
@Suite struct ConcurrencyDebugTests {
    static let childMarker = "OPENCOREDATA_TEST_CONCURRENCY_VIOLATION"

    @Test func debugFlagStopsAChildThatTouchesAnObjectOffItsQueue() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--testing-library", "swift-testing", "--filter", "violatingChildProcessEntryPoint"]
        var environment = ProcessInfo.processInfo.environment
        environment["OPENCOREDATA_CONCURRENCY_DEBUG"] = "1"
        environment[Self.childMarker] = "1"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
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
