import Observation
import Synchronization

/// Where a model's Observation registrar is kept: beside its values, in the detached storage
/// before the model is inserted and in its managed object after (`_ModelBacking.registrarBox`),
/// so that the model object itself is two words (a smaller allocation for every fetched model).
///
/// The registrar itself (two allocations and a lock, about 130 bytes) is made when a property
/// is first read: only a read can put the model in an observer's access list, so a model that
/// was never read has no observers, and its changes (an initializer's assignments, an import's
/// writes) skip the registrar. A fetched model that is never read costs none.
struct ObservationSlot: ~Copyable, Sendable {
    /// The registrar's box, retained, as an address; 0 until made. (An integer atomic: the
    /// generic lazy reference was looked up by the runtime on every access.)
    private let made = Atomic<UInt>(0)

    init() {}

    deinit {
        let bits = made.load(ordering: .acquiring)
        if let address = UnsafeRawPointer(bitPattern: bits) { Unmanaged<RegistrarBox>.fromOpaque(address).release() }
    }

    /// The registrar's box, if made.
    var existing: RegistrarBox? {
        guard let address = UnsafeRawPointer(bitPattern: made.load(ordering: .acquiring)) else { return nil }
        return Unmanaged<RegistrarBox>.fromOpaque(address).takeUnretainedValue()
    }

    /// The registrar's box, made on first use (once, whichever thread asks first).
    var box: RegistrarBox {
        if let box = existing { return box }
        return install(Unmanaged.passRetained(RegistrarBox()))
    }

    /// Takes over `other`'s registrar, if it has one and this slot none: a model's observers
    /// stay registered when its values move from detached storage to its managed object.
    func adopt(_ other: borrowing ObservationSlot) {
        let bits = other.made.exchange(0, ordering: .acquiringAndReleasing)
        guard let address = UnsafeRawPointer(bitPattern: bits) else { return }
        let (exchanged, _) = made.compareExchange(expected: 0, desired: bits, ordering: .acquiringAndReleasing)
        // A registrar was here first: the adopted one goes.
        if !exchanged { Unmanaged<RegistrarBox>.fromOpaque(address).release() }
    }

    /// Puts `candidate` (retained) here unless a box is here already; returns the box here.
    private func install(_ candidate: Unmanaged<RegistrarBox>) -> RegistrarBox {
        let bits = UInt(bitPattern: candidate.toOpaque())
        let (exchanged, original) = made.compareExchange(expected: 0, desired: bits, ordering: .acquiringAndReleasing)
        if exchanged { return candidate.takeUnretainedValue() }
        // Another thread made one first: use it, drop ours.
        candidate.release()
        return Unmanaged<RegistrarBox>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue()
    }
}

extension PersistentModel {
    /// Tells observers that `keyPath` was read (the getter `@_PersistedProperty` writes calls it).
    ///
    /// - Parameter keyPath: The property read.
    public func _observationAccess<Member>(_ keyPath: KeyPath<Self, Member>) {
        persistentBackingData.registrarBox(making: true)?.registrar.access(self, keyPath: keyPath)
    }

    /// Runs `mutation`, telling observers that `keyPath` changes (the setter `@_PersistedProperty`
    /// writes calls it).
    ///
    /// - Parameters:
    ///   - keyPath: The property changed.
    ///   - mutation: The change.
    /// - Returns: What `mutation` returns.
    /// - Throws: What `mutation` throws.
    public func _observationMutation<Member, T>(of keyPath: KeyPath<Self, Member>, _ mutation: () throws -> T) rethrows -> T {
        // Never read, so never observed: nothing to tell.
        guard let box = persistentBackingData.registrarBox(making: false) else { return try mutation() }
        return try box.registrar.withMutation(of: self, keyPath: keyPath, mutation)
    }
}

/// Holds a registrar where an atomic reference can point at it.
final class RegistrarBox: Sendable {
    let registrar = ObservationRegistrar()
}

/// The storage `@_PersistedProperty` leaves behind a persisted property: nothing, but something
/// the property's initializer accessor initializes, so that every initializer must set it.
public struct _PersistedStorage: Sendable {
    public init() {}
}
