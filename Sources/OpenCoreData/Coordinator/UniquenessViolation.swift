/// What a store reports when a write breaks a uniqueness constraint, in the model's terms; the
/// context turns it into `NSManagedObjectConstraintMergeError`.
package struct UniquenessViolation: Error {
    /// The entity whose row's write failed.
    let entity: NSEntityDescription
    /// The key of that row.
    let primaryKey: Int64
    /// The broken constraint's property names, as the model lists them (`entity`'s or an
    /// ancestor's); nil when the store cannot tell, and the context names the first constraint.
    let constraint: [String]?
    /// The store's own words, for descriptions only: never parsed outside the store.
    let detail: String

    package init(entity: NSEntityDescription, primaryKey: Int64, constraint: [String]? = nil, detail: String) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.constraint = constraint
        self.detail = detail
    }
}
