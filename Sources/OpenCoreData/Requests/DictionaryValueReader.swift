/// How one value a store selects for a dictionary fetch becomes a dictionary value, whichever
/// store selected it.
package enum DictionaryValueReader {
    /// As the attribute's value (`NSNumber`, `String`, `Date`…).
    case attribute(NSAttributeDescription)
    /// A to-one key as an object ID of the destination's hierarchy; when the hierarchy has
    /// several entities, the next column holds the destination row's entity number.
    case object(NSEntityDescription, entityColumn: Bool)
    /// Z_PK then Z_ENT of the fetched row, as its object ID.
    case evaluatedObject
    /// A computed value, as the expression description's result type says.
    case typed(NSAttributeType)
    /// A composite attribute, from one column per leaf, as its dictionary.
    case composite([RelationalLayout.ElementColumn])

    /// The columns the value takes in the selected row.
    package var columnCount: Int {
        switch self {
        case .object(_, let entityColumn): entityColumn ? 2 : 1
        case .evaluatedObject: 2
        case .composite(let leaves): leaves.count
        default: 1
        }
    }
}
