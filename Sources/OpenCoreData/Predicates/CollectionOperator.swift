/// A collection operator or aggregate function over the elements of a to-many key path, as a
/// store compiles it (the SQLite store into SQL, the in-memory one over rows).
package enum CollectionOperator: Equatable {
    case count, sum, average, min, max

    /// `@count`, `@sum`, `@avg`, `@min`, `@max` in a key path.
    package init?(keyPathOperator: String) {
        switch keyPathOperator {
        case "@count": self = .count
        case "@sum": self = .sum
        case "@avg": self = .average
        case "@min": self = .min
        case "@max": self = .max
        default: return nil
        }
    }

    /// `count(…)`, `sum(…)`, `average(…)`, `min(…)`, `max(…)` as functions.
    package init?(function: String) {
        switch function {
        case "count:": self = .count
        case "sum:": self = .sum
        case "average:": self = .average
        case "min:": self = .min
        case "max:": self = .max
        default: return nil
        }
    }
}
