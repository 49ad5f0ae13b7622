import Foundation
import GRDB

extension SQLFragment {
    /// The values as GRDB binds them to the text's `?` placeholders.
    var arguments: StatementArguments { StatementArguments(values.map(\.databaseValue)) }
}

extension SQLFragment.StringInterpolation {
    /// A bound parameter given in GRDB's form.
    mutating func appendInterpolation(bind value: (any DatabaseValueConvertible)?) {
        appendInterpolation(bind: SQLValue(value))
    }
}

extension SQLValue {
    /// A GRDB value as a SQL value.
    init(_ value: (any DatabaseValueConvertible)?) {
        switch value?.databaseValue.storage {
        case nil, .null?: self = .null
        case .int64(let x)?: self = .integer(x)
        case .double(let x)?: self = .real(x)
        case .string(let x)?: self = .text(x)
        case .blob(let x)?: self = .blob(x)
        }
    }

    /// The value as the SQLite store's columns hold it (docs/sqlite-format.md): a UUID in its 16
    /// bytes, a decimal as a floating-point number.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let x): x.databaseValue
        case .real(let x): x.databaseValue
        case .text(let x): x.databaseValue
        case .blob(let x): x.databaseValue
        case .uuid(let x): withUnsafeBytes(of: x.uuid) { Data($0) }.databaseValue
        case .decimal(let x): NSDecimalNumber(decimal: x).doubleValue.databaseValue
        }
    }
}
