import CSwiftRetain

/// A managed object's reference to the model standing for it: weak as a `weak` reference is (nil
/// once the model is being destroyed, safely from any thread), without the side table a `weak`
/// reference gives its target.
///
/// Swift allocates a side table (48 bytes of heap) for every object that is ever the target of a
/// `weak` reference, and every fetched model is the target of its managed object's: a third of
/// what a fetched model cost beyond the managed object. An unowned reference keeps its count in
/// the object's header instead; it keeps the model's memory (not the model) until released, so
/// that reading the reference can ask the runtime to take a strong reference only if the model
/// is not being destroyed (`ocd_try_retain`, the same atomic step a `weak` load makes).
struct ModelOwnerReference: ~Copyable {
    /// The model, unowned-retained; nil when there is none.
    private var address: UnsafeMutableRawPointer?

    init() {}

    deinit {
        if let address { ocd_unowned_release(address) }
    }

    /// The model, if it is not being destroyed.
    var model: (any PersistentModel)? { object as? any PersistentModel }

    /// The model as `type`, if it is not being destroyed and is one.
    func model<Model: PersistentModel>(as type: Model.Type) -> Model? { object as? Model }

    private var object: AnyObject? {
        guard let address, ocd_try_retain(address) else { return nil }
        // Retained by `ocd_try_retain`: the strong reference is taken over here.
        return Unmanaged<AnyObject>.fromOpaque(address).takeRetainedValue()
    }

    /// Refers to `model` from now on (nil for none).
    mutating func set(_ model: (any PersistentModel)?) {
        set(address: model.map { Unmanaged.passUnretained($0 as AnyObject).toOpaque() }, isUnshared: false)
    }

    /// Refers to the model at `new` from now on (nil for none).
    ///
    /// - Parameters:
    ///   - new: The model's address.
    ///   - isUnshared: Whether the model was just made on this thread and handed to no one: its
    ///     count is then raised without an atomic step (no other thread can reach it yet).
    mutating func set(address new: UnsafeMutableRawPointer?, isUnshared: Bool) {
        if new == address { return }
        if let new { isUnshared ? ocd_unowned_retain_unshared(new) : ocd_unowned_retain(new) }
        // A model being destroyed on another thread may still be here.
        if let address { ocd_unowned_release(address) }
        address = new
    }
}
