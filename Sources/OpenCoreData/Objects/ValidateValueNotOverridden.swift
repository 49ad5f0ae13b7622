/// A hand-written `NSManagedObject` subclass whose class, and every subclass it can have, leaves
/// `validateValue(_:forKey:)` as `NSManagedObject` has it. Not meant to be written by hand: the
/// ManagedObjectCodegen plugin declares it for a class that inherits from `NSManagedObject`
/// directly, is not `open` (so that every subclass of it is in the same target) and is in a
/// target whose sources never mention `validateValue`.
///
/// A save then checks such objects against the model's rules in place, as it does the classes the
/// plugin generates, instead of asking `validateValue(_:forKey:)` for every property: the boxed
/// value, the key and the dynamic call were half of inserting a row of ten integers.
public protocol _ValidateValueNotOverridden: AnyObject {}
