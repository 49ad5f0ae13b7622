/// A Swift type as the code generator knows it: enough to write it in source and to mangle it.
public indirect enum SwiftType: Hashable, Sendable {
    /// A type with a standard-library substitution (`String` is `SS`, `Int` is `Si`).
    case standard(name: String, mangling: String)
    /// A nominal type of a module: a class (`C`), struct (`V`) or enum (`O`); `path` is its name
    /// with the names of the types it is nested in before it.
    case nominal(module: String, path: [String], kind: NominalKind)
    /// `T?`; `implicitlyUnwrapped` for `T!`, which mangles the same.
    case optional(SwiftType, implicitlyUnwrapped: Bool)
    /// `Set<T>`, `[T]`: a generic type with its arguments.
    case generic(base: SwiftType, arguments: [SwiftType])

    public enum NominalKind: Character, Hashable, Sendable {
        case `class` = "C"
        case `struct` = "V"
        case `enum` = "O"
    }

    /// How the type is written in Swift source.
    public var source: String {
        switch self {
        case .standard(let name, _): name
        case .nominal(_, let path, _): path.joined(separator: ".")
        case .optional(let wrapped, let implicitlyUnwrapped): wrapped.source + (implicitlyUnwrapped ? "!" : "?")
        case .generic(let base, let arguments):
            base.source == "Array" && arguments.count == 1
                ? "[\(arguments[0].source)]" : "\(base.source)<\(arguments.map(\.source).joined(separator: ", "))>"
        }
    }
}

extension SwiftType {
    /// The same type with `T!` as `T?`: both mangle alike, so they are one substitution.
    var withoutImplicitUnwrapping: SwiftType {
        switch self {
        case .standard, .nominal: self
        case .optional(let wrapped, _): .optional(wrapped.withoutImplicitUnwrapping, implicitlyUnwrapped: false)
        case .generic(let base, let arguments): .generic(base: base, arguments: arguments.map(\.withoutImplicitUnwrapping))
        }
    }
}
