import Foundation

/// Whether work may be handed to a second thread while the caller goes on (a chunked read, a large
/// save's IDs): with one core the two would only take turns.
enum SecondThread {
    static let helps = ProcessInfo.processInfo.activeProcessorCount > 1

    /// Elements below which work stays on the caller's thread: handing a few thousand over costs
    /// more than doing them here.
    static var minimumCount: Int { 4_096 }

    /// Whether work on `count` elements is worth handing to a second thread.
    static func helps(with count: Int) -> Bool { helps && count >= minimumCount }

    /// Releases `value` on another thread. A large save ends holding arrays and sets of a million
    /// objects and IDs; releasing them touches each element's reference count in an order the
    /// cache does not follow, a tenth of such a save's time, which the caller need not wait for.
    /// An object whose last reference is in `value` deinitializes on that thread and leaves its
    /// context's registry from there, which the registry allows (`ObjectRegistry`); until then
    /// it stays registered, and a fetch returns it as it is.
    /// `count` is how many elements `value` holds (`helps(with:)`).
    static func release<T>(_ value: consuming T, count: Int) {
        guard helps(with: count) else { return }
        let box = ReleasedValue(value)
        releaseQueue.async { box.drop() }
    }

    /// Returns once every value handed to `release(_:)` so far is released.
    static func waitForReleases() {
        releaseQueue.sync {}
    }

    private static let releaseQueue = DispatchQueue(label: "OpenCoreData.Release")
}

/// A value on its way to `SecondThread`'s release queue.
private final class ReleasedValue<T>: @unchecked Sendable {
    // @unchecked Sendable: the caller gave the value up; only the release queue touches it.
    private var value: T?
    init(_ value: consuming T) { self.value = value }
    func drop() { value = nil }
}
