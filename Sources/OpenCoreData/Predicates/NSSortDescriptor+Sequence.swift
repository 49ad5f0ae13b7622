extension Sequence<Foundation.NSSortDescriptor> {
    /// The order of two values by these descriptors: the first that does not find them equal
    /// decides; `.orderedSame` when none does (the caller breaks the tie).
    func compare(_ a: Any, _ b: Any) -> ComparisonResult {
        for descriptor in self {
            let order = descriptor.compare(a, to: b)
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }
}
