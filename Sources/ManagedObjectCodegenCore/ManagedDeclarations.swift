/// The `@NSManaged` declarations of a target's sources, as the generator needs them: where each
/// is, which class it belongs to, and its Swift type.
public struct ManagedProperty: Sendable {
    public let location: SourceLocation
    /// The class path (`["Item"]`, `["Outer", "Inner"]`).
    public let owner: [String]
    public let name: String
    public let type: SwiftType
    /// `public` or `open` properties need `public` accessors (callers in other modules).
    public let isPublic: Bool
    /// The base name of the declaring file, for a `private` or `fileprivate` property.
    public let privateFile: String?
    /// Whether the setter is as public as the getter: false for `public private(set)`,
    /// `public fileprivate(set)` and `public internal(set)`.
    public let setterIsPublic: Bool

    public init(
        location: SourceLocation, owner: [String], name: String, type: SwiftType, isPublic: Bool, privateFile: String? = nil,
        setterIsPublic: Bool? = nil
    ) {
        self.location = location
        self.owner = owner
        self.name = name
        self.type = type
        self.isPublic = isPublic
        self.privateFile = privateFile
        self.setterIsPublic = setterIsPublic ?? isPublic
    }
}

/// An `@NSManaged func`: one of the to-many accessors Xcode generates.
public struct ManagedMethod: Sendable {
    public let location: SourceLocation
    public let owner: [String]
    public let name: String
    public let parameters: [Parameter]
    public let isPublic: Bool
    public let privateFile: String?

    public struct Parameter: Sendable {
        public let label: String?
        public let name: String
        public let type: SwiftType

        public init(label: String?, name: String, type: SwiftType) {
            self.label = label
            self.name = name
            self.type = type
        }
    }

    public init(
        location: SourceLocation, owner: [String], name: String, parameters: [Parameter], isPublic: Bool, privateFile: String? = nil
    ) {
        self.location = location
        self.owner = owner
        self.name = name
        self.parameters = parameters
        self.isPublic = isPublic
        self.privateFile = privateFile
    }
}

/// A place in a source file, for diagnostics.
public struct SourceLocation: Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// A declaration the generator cannot supply accessors for, reported as a compiler error at its
/// place so that the build stops there rather than at the linker.
public struct ManagedDeclarationError: Error, CustomStringConvertible {
    public let location: SourceLocation
    public let message: String

    public init(_ location: SourceLocation, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): error: \(message)" }
}
