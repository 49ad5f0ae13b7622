/// Where the SQL stores keep what a save tells them of a relationship by the relationship alone:
/// the context names relationships, the layout names columns and tables.
extension NSRelationshipDescription {
    /// For an ordered one-to-many: the column of its members' rows holding their positions
    /// (`Z_FOK_<INVERSE>`).
    package var orderColumn: String? { isToMany ? inverseRelationship?.orderColumnName : nil }

    /// For a many-to-many: its join table when this side's pairs are the ones kept there (the
    /// table belongs to one side; the other's pairs are the same pairs).
    package var pairTable: JoinTable? { joinTable.flatMap { $0.isOwner ? $0 : nil } }
}
