/// A hand-written `NSManagedObject` subclass whose hierarchy, as far as its target declares it,
/// leaves `validateValue(_:forKey:)` as `NSManagedObject` has it. Not meant to be written by hand:
/// the ManagedObjectCodegen plugin declares it for a class that inherits from `NSManagedObject`
/// directly, in a target whose sources never mention `validateValue`, and lists that class and
/// the subclasses of it the target declares. A subclass it does not list (in another module, or
/// in a test target that imports the app with `@testable`) may override the method, and is asked.
///
/// A save checks the objects of the listed classes against the model's rules in place, as it does
/// the classes the plugin generates, instead of asking `validateValue(_:forKey:)` for every
/// property: the boxed value, the key and the dynamic call were half of inserting a row of ten
/// integers.
public protocol _ValidateValueNotOverridden: AnyObject {
    /// The classes of the hierarchy no source of the target overrides the method in.
    static var _classesWithoutValidateValueOverride: [ObjectIdentifier] { get }
}
