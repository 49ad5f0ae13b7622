import CSwiftRetain
import Observation

/// Finds out whether Observation is tracking the reads on this thread (inside the `apply`
/// closure of `withObservationTracking`, or of anything built on it such as `Observations`), so
/// that a model read outside one need not make its registrar (`_ModelObservationRegistrar`).
///
/// Observation keeps that state in a thread-local it does not export. What it does do, when a
/// registrar's `access` runs while tracking, is add the key path read to the tracking's set,
/// which hashes the key path, and hashing a key path hashes its subscript arguments. So a read
/// with a key path whose argument counts its hashes (`ProbeToken`) tells: the count moves only
/// while tracking.
///
/// The read is made on this thread's spare registrar, and when it tells of a tracking, that
/// registrar (the tracking has noted it) becomes the model's: the tracking is then installed
/// on the model's registrar alone and goes with it, as it would had the registrar been there
/// before. Reads outside trackings leave the spare as it was, for the next model.
///
/// Should a later Observation no longer hash what it records, the probe would never move and
/// tracked models would miss their observers; `isUsable` checks the probe once against a
/// tracking of its own, and while it does not move every model read gets a registrar.
enum ObservationProbe {
    /// A registrar for the model being read, when the read happens inside a tracking (or the
    /// probe cannot tell): this thread's spare, handed over; nil outside a tracking.
    ///
    /// - Returns: The registrar's box, to become the model's; nil when the read needs none.
    static func registrarForTrackedRead() -> RegistrarBox? {
        // Every model read outside a tracking comes here: the spare is used without a retain
        // and the probe's parts are one global (each lazy global is a `swift_once` call).
        let spare = spareBox()
        let tracked = spare._withUnsafeGuaranteedRef { probe.tracks($0.registrar) }
        guard tracked else { return nil }
        // Taken: the spare's reference passes to the caller.
        ocd_set_spare_registrar(nil)
        return spare.takeRetainedValue()
    }

    /// This thread's spare box, made if there is none (retained by the thread's slot).
    private static func spareBox() -> Unmanaged<RegistrarBox> {
        if let address = ocd_spare_registrar() { return Unmanaged<RegistrarBox>.fromOpaque(address) }
        let made = Unmanaged.passRetained(RegistrarBox())
        ocd_set_spare_registrar(made.toOpaque())
        return made
    }

    /// The probe's parts, made once.
    private static let probe = Probe()
}

/// What the probe reads, and whether reading it tells.
private final class Probe: Sendable {
    /// The root of the key path read: `access` wants an observable root.
    let subject: ProbeSubject
    /// The key path read: a subscript whose argument counts its hashes.
    let keyPath: KeyPath<ProbeSubject, Int> & Sendable
    /// Whether the probe moves inside a tracking, for two reads of it in a row (checked once,
    /// with a registrar of its own: going, it ends the tracking installed on it). Not also
    /// checked outside one, where it should stay: the first check may run inside an app's own
    /// tracking. A probe that moved everywhere would only give every model read a registrar.
    let isUsable: Bool

    init() {
        let (subject, keyPath) = (ProbeSubject(), \ProbeSubject.[ProbeToken()])
        (self.subject, self.keyPath) = (subject, keyPath)
        let calibration = ObservationRegistrar()
        var moved = (false, false)
        withObservationTracking {
            moved = (Self.moves(calibration, subject, keyPath), Self.moves(calibration, subject, keyPath))
        } onChange: {}
        isUsable = moved == (true, true)
    }

    /// Whether a read of `registrar` now would be recorded by a tracking: the probe moves when
    /// read on it; always, when the probe cannot tell.
    func tracks(_ registrar: ObservationRegistrar) -> Bool {
        Self.moves(registrar, subject, keyPath) || !isUsable
    }

    /// Reads `keyPath` of `subject` on `registrar`; returns whether the probe was hashed.
    private static func moves(
        _ registrar: ObservationRegistrar, _ subject: ProbeSubject, _ keyPath: KeyPath<ProbeSubject, Int>
    ) -> Bool {
        let hits = ocd_observation_probe_hits()
        let before = hits.pointee
        registrar.access(subject, keyPath: keyPath)
        return hits.pointee != before
    }
}

/// The subject of the probe's key path.
private final class ProbeSubject: Observable, Sendable {
    subscript(token: ProbeToken) -> Int { 0 }
}

/// The probe key path's argument: counts each time it is hashed, on the hashing thread.
private struct ProbeToken: Hashable, Sendable {
    static func == (lhs: Self, rhs: Self) -> Bool { true }

    func hash(into hasher: inout Hasher) {
        ocd_observation_probe_hits().pointee &+= 1
        hasher.combine(0)
    }
}
