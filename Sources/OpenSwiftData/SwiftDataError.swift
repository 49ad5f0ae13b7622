/// The errors SwiftData's API throws, compared by kind (`error == .unsupportedPredicate`).
public struct SwiftDataError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, Hashable, Sendable {
        case loadIssueModelContainer, unsupportedPredicate, unsupportedSortDescriptor, unsupportedKeyPath
        case includePendingChangesWithBatchSize, modelValidationFailure, unknownSchema, backwardMigration
    }

    private let kind: Kind
    /// What went wrong in this instance; not part of equality.
    public let reason: String

    private init(_ kind: Kind, _ reason: String = "") {
        self.kind = kind
        self.reason = reason
    }

    /// The container could not open or create its store (a schema the store does not match
    /// without a migration, a file that is not a store).
    public static let loadIssueModelContainer = SwiftDataError(.loadIssueModelContainer)
    /// A fetch's predicate has a part that cannot run against the store.
    public static let unsupportedPredicate = SwiftDataError(.unsupportedPredicate)
    /// A fetch sorts by something that cannot be sorted by.
    public static let unsupportedSortDescriptor = SwiftDataError(.unsupportedSortDescriptor)
    /// A key path names no persisted property.
    public static let unsupportedKeyPath = SwiftDataError(.unsupportedKeyPath)
    /// A batched fetch cannot include unsaved changes.
    public static let includePendingChangesWithBatchSize = SwiftDataError(.includePendingChangesWithBatchSize)
    /// A model's values broke the schema's rules at save.
    public static let modelValidationFailure = SwiftDataError(.modelValidationFailure)
    /// The schema names no model of the given type.
    public static let unknownSchema = SwiftDataError(.unknownSchema)
    /// A store is newer than every schema of the migration plan.
    public static let backwardMigration = SwiftDataError(.backwardMigration)

    /// This error with `reason` attached.
    func because(_ reason: String) -> SwiftDataError { SwiftDataError(kind, reason) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind }

    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    public var description: String { reason.isEmpty ? "SwiftDataError.\(kind.rawValue)" : "SwiftDataError.\(kind.rawValue): \(reason)" }
}
