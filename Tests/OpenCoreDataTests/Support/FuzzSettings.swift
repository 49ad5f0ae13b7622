import Foundation

/// The environment variables every fuzz test reads: how many inputs (each its own variable, with a
/// default bounded for CI), the seed (`OPENCOREDATA_FUZZ_SEED`) and how slow an input may be
/// before it counts as a hang (`OPENCOREDATA_FUZZ_HANG_SECONDS`, 10 s: a debug build on a loaded
/// machine).
enum FuzzSettings {
    static let environment = ProcessInfo.processInfo.environment
    static let seed = environment["OPENCOREDATA_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_126
    static let hangSeconds = environment["OPENCOREDATA_FUZZ_HANG_SECONDS"].flatMap(Double.init) ?? 10

    static func iterations(_ variable: String, default value: Int) -> Int {
        environment[variable].flatMap(Int.init) ?? value
    }

    /// Seconds since `start` (a `DispatchTime` uptime in nanoseconds).
    static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
