import Observation

/// The Observation registrar `@Model` gives each model, behind a type of this module so that the
/// generated code needs no `import Observation` in the app.
public struct _ObservationRegistrar: Sendable {
    private let registrar = ObservationRegistrar()

    public init() {}

    /// Tells observers that `keyPath` of `subject` was read.
    public func access<Subject: Observable, Member>(_ subject: Subject, keyPath: KeyPath<Subject, Member>) {
        registrar.access(subject, keyPath: keyPath)
    }

    /// Runs `mutation`, telling observers that `keyPath` of `subject` changes.
    public func withMutation<Subject: Observable, Member, T>(
        of subject: Subject, keyPath: KeyPath<Subject, Member>, _ mutation: () throws -> T
    ) rethrows -> T {
        try registrar.withMutation(of: subject, keyPath: keyPath, mutation)
    }
}

/// The storage `@_PersistedProperty` leaves behind a persisted property: nothing, but something
/// the property's initializer accessor initializes, so that every initializer must set it.
public struct _PersistedStorage: Sendable {
    public init() {}
}
