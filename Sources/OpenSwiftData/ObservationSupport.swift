import Observation
import Synchronization

/// Where a model's Observation registrar is kept: beside its values, in the detached storage
/// before the model is inserted and in its managed object after (`_ModelObservationRegistrar`),
/// so that the model object itself is two words (a smaller allocation for every fetched model).
///
/// The registrar itself (two allocations and a lock, about 130 bytes) is made when a property
/// is first read while Observation tracks reads (`ObservationProbe`): only such a read can put
/// the model in an observer's access list, so a model never read that way has no observers, and
/// its changes (an initializer's assignments, an import's writes) skip the registrar. A fetched
/// model read only outside a tracking (a loop over a fetch's results) costs none.
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

    /// The registrar's box: `candidate`, put here unless a box is here already (once, whichever
    /// thread comes first).
    ///
    /// - Parameter candidate: The box to keep when there is none.
    /// - Returns: The box here.
    func box(installing candidate: RegistrarBox) -> RegistrarBox {
        let offered = Unmanaged.passRetained(candidate)
        let bits = UInt(bitPattern: offered.toOpaque())
        let (exchanged, original) = made.compareExchange(expected: 0, desired: bits, ordering: .acquiringAndReleasing)
        if exchanged { return candidate }
        // A box was here first: keep it, drop the offer.
        offered.release()
        return Unmanaged<RegistrarBox>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue()
    }

    /// Takes over `other`'s registrar, if it has one and this slot none: a model's observers
    /// stay registered when its values move from detached storage to its managed object.
    func adopt(_ other: borrowing ObservationSlot) {
        let bits = other.made.exchange(0, ordering: .acquiringAndReleasing)
        guard let address = UnsafeRawPointer(bitPattern: bits) else { return }
        // A registrar here first stays; the adopted one then goes.
        _ = box(installing: Unmanaged<RegistrarBox>.fromOpaque(address).takeRetainedValue())
    }
}

/// What `@Model` declares as a model's `_$observationRegistrar`, where Apple's declares
/// Observation's registrar itself: the calls made on it (by hand-written accessors of
/// `@Transient` properties, and by the value functions the generated accessors call) reach the
/// registrar kept with the model's values (`ObservationSlot`). Of no size: the model object
/// stays two words.
public struct _ModelObservationRegistrar: Sendable {
    @inlinable public init() {}

    // The calls are inlined into the accessors that make them: a model without a registrar
    // (every model an import makes, every fetched model read outside a tracking) then costs
    // a look at its backing, with no generic call, no closure and no key path made.

    /// Tells observers that `keyPath` of `subject` was read.
    ///
    /// - Parameters:
    ///   - subject: The model read.
    ///   - keyPath: The property read; evaluated only when the read can be observed.
    @inlinable
    public func access<Subject: PersistentModel, Member>(_ subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>) {
        if let box = Self.existingBox(in: subject.persistentBackingData) { return box.registrar.access(subject, keyPath: keyPath()) }
        // Read outside a tracking, a model without a registrar needs none: nothing registers.
        guard let box = Self.boxForTrackedRead(of: subject) else { return }
        box.registrar.access(subject, keyPath: keyPath())
    }

    /// Runs `mutation`, telling observers that `keyPath` of `subject` changes.
    ///
    /// - Parameters:
    ///   - subject: The model changed.
    ///   - keyPath: The property changed; evaluated only when the model can have observers.
    ///   - mutation: The change.
    /// - Returns: What `mutation` returns.
    /// - Throws: What `mutation` throws.
    @inlinable
    public func withMutation<Subject: PersistentModel, Member, T>(
        of subject: Subject, keyPath: @autoclosure () -> KeyPath<Subject, Member>, _ mutation: () throws -> T
    ) rethrows -> T {
        // Never read while tracked, so never observed: nothing to tell.
        guard let box = Self.existingBox(in: subject.persistentBackingData) else { return try mutation() }
        return try box.registrar.withMutation(of: subject, keyPath: keyPath(), mutation)
    }

    /// Tells observers that `keyPath` of `subject` is about to change.
    ///
    /// - Parameters:
    ///   - subject: The model about to change.
    ///   - keyPath: The property about to change.
    public func willSet<Subject: PersistentModel, Member>(_ subject: Subject, keyPath: KeyPath<Subject, Member>) {
        Self.existingBox(in: subject.persistentBackingData)?.registrar.willSet(subject, keyPath: keyPath)
    }

    /// Tells observers that `keyPath` of `subject` changed.
    ///
    /// - Parameters:
    ///   - subject: The model changed.
    ///   - keyPath: The property changed.
    public func didSet<Subject: PersistentModel, Member>(_ subject: Subject, keyPath: KeyPath<Subject, Member>) {
        Self.existingBox(in: subject.persistentBackingData)?.registrar.didSet(subject, keyPath: keyPath)
    }

    /// The box of the registrar of the model whose backing is `backing`, if it has one.
    @usableFromInline static func existingBox(in backing: _ModelBacking) -> RegistrarBox? {
        switch backing {
        case .managed(let object), .unattached(let object): existingBox(of: object)
        case .detached(let values): values.observation.existing
        }
    }

    /// The box of the registrar of the model whose managed object is `object`, if it has one.
    @usableFromInline static func existingBox(of object: ModelManagedObject) -> RegistrarBox? {
        object.observation.existing
    }

    /// Tells observers that `keyPath` of `subject`, whose managed object is `object`, was read:
    /// `access(_:keyPath:)` for an accessor that has the object in hand already.
    ///
    /// - Parameters:
    ///   - subject: The model read.
    ///   - object: Its managed object.
    ///   - keyPath: The property read; evaluated only when the read can be observed.
    @inlinable static func access<Subject: PersistentModel, Member>(
        _ subject: Subject, through object: ModelManagedObject, keyPath: @autoclosure () -> KeyPath<Subject, Member>
    ) {
        guard let box = existingBox(of: object) ?? boxForTrackedRead(of: subject) else { return }
        box.registrar.access(subject, keyPath: keyPath())
    }

    /// Runs `mutation`, telling observers that `keyPath` of `subject`, whose managed object is
    /// `object`, changes: `withMutation(of:keyPath:_:)` for an accessor that has the object in
    /// hand already.
    ///
    /// - Parameters:
    ///   - subject: The model changed.
    ///   - object: Its managed object.
    ///   - keyPath: The property changed; evaluated only when the model can have observers.
    ///   - mutation: The change.
    @inlinable static func withMutation<Subject: PersistentModel, Member>(
        of subject: Subject, through object: ModelManagedObject, keyPath: @autoclosure () -> KeyPath<Subject, Member>,
        _ mutation: () -> Void
    ) {
        guard let box = existingBox(of: object) else { return mutation() }
        box.registrar.withMutation(of: subject, keyPath: keyPath(), mutation)
    }

    /// The box of the registrar `model`, which has none, gets for a read inside a tracking
    /// (`ObservationProbe`); nil outside one. Writes the model's backing only for a model still
    /// sharing the empty detached storage.
    @usableFromInline static func boxForTrackedRead(of model: some PersistentModel) -> RegistrarBox? {
        guard let made = ObservationProbe.registrarForTrackedRead() else { return nil }
        switch model.persistentBackingData {
        case .managed(let object), .unattached(let object): return object.observation.box(installing: made)
        case .detached(let values) where values !== DetachedValues.none: return values.observation.box(installing: made)
        case .detached: return model.persistentBackingData.ownRegistrarBox(installing: made)
        }
    }
}

/// Holds a registrar where an atomic reference can point at it.
@usableFromInline final class RegistrarBox: Sendable {
    @usableFromInline let registrar = ObservationRegistrar()
}

/// The storage `@_PersistedProperty` leaves behind a persisted property: nothing, but something
/// the property's initializer accessor initializes, so that every initializer must set it.
public struct _PersistedStorage: Sendable {
    public init() {}
}
