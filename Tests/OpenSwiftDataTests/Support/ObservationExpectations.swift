import Foundation
import Observation
import Testing

/// Observes what `read` reads: nothing is heard while `unheard` runs, then `change` is heard.
///
/// - Parameters:
///   - read: What the observer reads.
///   - unheard: Changes the observer must not hear (none by default).
///   - change: The change it must hear.
///   - sourceLocation: Where a failed expectation is reported.
func expectHeard(
    reading read: () -> Void, notChanging unheard: () -> Void = {}, changing change: () -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let changed = Flag()
    withObservationTracking { read() } onChange: { changed.set() }
    unheard()
    #expect(!changed.isSet, sourceLocation: sourceLocation)
    change()
    #expect(changed.isSet, sourceLocation: sourceLocation)
}
