/// The types Core Data properties have, with the module that declares each on Linux: the value
/// types of swift-foundation live in `FoundationEssentials`, the classes in `Foundation`
/// (checked against the compiler's symbols by `MangledNameTests`).
extension SwiftType {
    public static let string = standard(name: "String", mangling: "SS")
    public static let int = standard(name: "Int", mangling: "Si")
    public static let bool = standard(name: "Bool", mangling: "Sb")
    public static let double = standard(name: "Double", mangling: "Sd")
    public static let float = standard(name: "Float", mangling: "Sf")
    public static let int16 = nominal(module: "Swift", path: ["Int16"], kind: .struct)
    public static let int32 = nominal(module: "Swift", path: ["Int32"], kind: .struct)
    public static let int64 = nominal(module: "Swift", path: ["Int64"], kind: .struct)

    public static let date = nominal(module: "FoundationEssentials", path: ["Date"], kind: .struct)
    public static let data = nominal(module: "FoundationEssentials", path: ["Data"], kind: .struct)
    public static let uuid = nominal(module: "FoundationEssentials", path: ["UUID"], kind: .struct)
    public static let url = nominal(module: "FoundationEssentials", path: ["URL"], kind: .struct)
    public static let decimal = nominal(module: "FoundationEssentials", path: ["Decimal"], kind: .struct)

    public static let nsNumber = nominal(module: "Foundation", path: ["NSNumber"], kind: .class)
    public static let nsDecimalNumber = nominal(module: "Foundation", path: ["NSDecimalNumber"], kind: .class)
    public static let nsSet = nominal(module: "Foundation", path: ["NSSet"], kind: .class)
    public static let nsOrderedSet = nominal(module: "Foundation", path: ["NSOrderedSet"], kind: .class)
    public static let nsIndexSet = nominal(module: "Foundation", path: ["NSIndexSet"], kind: .class)
    public static let nsObject = nominal(module: "Foundation", path: ["NSObject"], kind: .class)

    /// `Set<element>`.
    /// A class of Foundation (`NSArray`, `NSDictionary`…).
    public static func foundationClass(_ name: String) -> SwiftType {
        nominal(module: "Foundation", path: [name], kind: .class)
    }

    public static func set(_ element: SwiftType) -> SwiftType {
        .generic(base: .standard(name: "Set", mangling: "Sh"), arguments: [element])
    }

    /// `[element]`.
    public static func array(_ element: SwiftType) -> SwiftType {
        .generic(base: .standard(name: "Array", mangling: "Sa"), arguments: [element])
    }

    /// `self?`.
    public var optional: SwiftType { .optional(self, implicitlyUnwrapped: false) }

    /// A class of `module`.
    public static func localClass(_ name: String, in module: String) -> SwiftType {
        .nominal(module: module, path: name.split(separator: ".").map(String.init), kind: .class)
    }
}
