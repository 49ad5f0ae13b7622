import Observation
import Synchronization

/// The Observation registrar `@Model` gives each model, behind a type of this module so that the
/// generated code needs no `import Observation` in the app.
///
/// The registrar itself (two allocations and a lock, about 130 bytes) is made when a property
/// is first read: only a read can put the model in an observer's access list, so a model that
/// was never read has no observers, and its changes (an initializer's assignments, an import's
/// writes) skip the registrar. A fetched model that is never read costs none.
public struct _ObservationRegistrar: ~Copyable, Sendable {
    /// The registrar's box, retained, as an address; 0 until made. (An integer atomic: the
    /// generic lazy reference was looked up by the runtime on every access.)
    @usableFromInline let made = Atomic<UInt>(0)

    public init() {}

    deinit {
        let bits = made.load(ordering: .acquiring)
        if let address = UnsafeRawPointer(bitPattern: bits) { Unmanaged<RegistrarBox>.fromOpaque(address).release() }
    }

    /// The registrar's box, if made.
    @inlinable var existing: RegistrarBox? {
        guard let address = UnsafeRawPointer(bitPattern: made.load(ordering: .acquiring)) else { return nil }
        return Unmanaged<RegistrarBox>.fromOpaque(address).takeUnretainedValue()
    }

    /// The registrar, made on first use (once, whichever thread asks first).
    @usableFromInline var registrar: ObservationRegistrar {
        if let box = existing { return box.registrar }
        let box = Unmanaged.passRetained(RegistrarBox())
        let bits = UInt(bitPattern: box.toOpaque())
        let (exchanged, original) = made.compareExchange(expected: 0, desired: bits, ordering: .acquiringAndReleasing)
        if exchanged { return box.takeUnretainedValue().registrar }
        // Another thread made one first: use it, drop ours.
        box.release()
        return Unmanaged<RegistrarBox>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue().registrar
    }

    /// Tells observers that `keyPath` of `subject` was read.
    @inlinable public func access<Subject: Observable, Member>(_ subject: Subject, keyPath: KeyPath<Subject, Member>) {
        registrar.access(subject, keyPath: keyPath)
    }

    /// Runs `mutation`, telling observers that `keyPath` of `subject` changes.
    @inlinable public func withMutation<Subject: Observable, Member, T>(
        of subject: Subject, keyPath: KeyPath<Subject, Member>, _ mutation: () throws -> T
    ) rethrows -> T {
        // Never read, so never observed: nothing to tell.
        guard let box = existing else { return try mutation() }
        return try box.registrar.withMutation(of: subject, keyPath: keyPath, mutation)
    }
}

/// Holds a registrar where an atomic reference can point at it.
@usableFromInline final class RegistrarBox: Sendable {
    @usableFromInline let registrar = ObservationRegistrar()

    @usableFromInline init() {}
}

/// The storage `@_PersistedProperty` leaves behind a persisted property: nothing, but something
/// the property's initializer accessor initializes, so that every initializer must set it.
public struct _PersistedStorage: Sendable {
    public init() {}
}
