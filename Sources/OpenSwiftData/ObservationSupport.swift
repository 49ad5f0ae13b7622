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
    private let made = AtomicLazyReference<RegistrarBox>()

    public init() {}

    /// The registrar, made on first use (once, whichever thread asks first).
    private var registrar: ObservationRegistrar {
        if let box = made.load() { return box.registrar }
        return made.storeIfNil(RegistrarBox()).registrar
    }

    /// Tells observers that `keyPath` of `subject` was read.
    public func access<Subject: Observable, Member>(_ subject: Subject, keyPath: KeyPath<Subject, Member>) {
        registrar.access(subject, keyPath: keyPath)
    }

    /// Runs `mutation`, telling observers that `keyPath` of `subject` changes.
    public func withMutation<Subject: Observable, Member, T>(
        of subject: Subject, keyPath: KeyPath<Subject, Member>, _ mutation: () throws -> T
    ) rethrows -> T {
        // Never read, so never observed: nothing to tell.
        guard let box = made.load() else { return try mutation() }
        return try box.registrar.withMutation(of: subject, keyPath: keyPath, mutation)
    }
}

/// Holds a registrar where an atomic reference can point at it.
private final class RegistrarBox: Sendable {
    let registrar = ObservationRegistrar()
}

/// The storage `@_PersistedProperty` leaves behind a persisted property: nothing, but something
/// the property's initializer accessor initializes, so that every initializer must set it.
public struct _PersistedStorage: Sendable {
    public init() {}
}
