import Foundation
import PostgreSQLScratchServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `todo fetch`, synchronous and asynchronous, and Ctrl-C cancelling the asynchronous one.
@Suite struct FetchCommandTests {
    @Test func fetchSaysHowManyRecords() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("populate", "--count", "2500")
        let result = try sandbox.run("fetch")
        #expect(result.status == 0)
        #expect(result.lines.count == 1)
        #expect(result.lines.first?.hasPrefix("Fetched 2500 records in ") == true)
    }

    @Test func asynchronousFetchShowsItsProgressThenTheCount() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("populate", "--count", "2500")
        let result = try sandbox.run("fetch", "--async")
        #expect(result.status == 0)
        #expect(result.stderr == "")
        // Plain progress lines (not a terminal), rising to the total, then the count.
        let progress = result.lines.dropLast().compactMap { line -> Int? in
            guard line.hasPrefix("Fetched: ") else { return nil }
            return Int(line.dropFirst("Fetched: ".count).prefix { $0.isNumber })
        }
        #expect(progress.count == result.lines.count - 1)
        #expect(progress == progress.sorted())
        #expect(progress.last == 2500)
        #expect(result.lines.last?.hasPrefix("Fetched 2500 records in ") == true)
    }

    @Test func asynchronousFetchOfAMissingStoreIsAnError() throws {
        let sandbox = try TodoSandbox()
        let error = try sandbox.expectFailure("fetch", "--async")
        #expect(error.hasPrefix("Error: "))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    /// Ctrl-C while rows are read: the fetch is cancelled, reported on standard error, and the
    /// program exits 1 instead of being killed by the signal.
    @Test func interruptCancelsTheAsynchronousFetch() throws {
        let sandbox = try TodoSandbox()
        try sandbox.run("populate", "--count", "200000")
        let output = sandbox.folder.appendingPathComponent("fetch-output")
        let errors = sandbox.folder.appendingPathComponent("fetch-errors")
        let process = try SpawnedProgram.start(
            [try TodoSandbox.executable().path, "fetch", "--async", "--store", sandbox.store.path], stdout: output.path, stderr: errors.path)
        // Interrupt as soon as the first progress line shows that rows are being read.
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline,
            !String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self).contains("Fetched: ")
        {
            usleep(2_000)
        }
        process.send(SIGINT)
        // An exit status, not a signal's (128 + the signal).
        #expect(process.wait() == 1)
        let stderr = String(decoding: try Data(contentsOf: errors), as: UTF8.self)
        #expect(stderr.hasPrefix("Error: Cancelled the fetch after "))
        #expect(stderr.contains(" of 200000 records; nothing was kept."))
    }
}
