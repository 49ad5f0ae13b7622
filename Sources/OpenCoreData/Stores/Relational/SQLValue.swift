import Foundation

/// A value a SQL statement binds, before a dialect turns it into its driver's form.
///
/// UUIDs and decimals keep their own cases because the stores keep them differently: SQLite in 16
/// bytes and as a floating-point number, PostgreSQL in `uuid` and `numeric` columns.
package enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case uuid(UUID)
    case decimal(Decimal)
}
