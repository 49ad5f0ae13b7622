/// The `userInfo` key of a predicate parse error holding the character offset (an `Int`) where the
/// format string stops making sense.
public let PredicateFormatErrorOffsetKey = "PredicateFormatErrorOffset"
/// The `userInfo` key of a predicate parse error holding the format string that failed to parse.
public let PredicateFormatErrorFormatKey = "PredicateFormatErrorFormat"

/// Why and where a format string failed to parse; becomes an `NSError` at the public API.
struct PredicateParseError: Error {
    let message: String
    let offset: Int

    static func expected(_ what: String, at offset: Int) -> PredicateParseError {
        PredicateParseError(message: "expected \(what)", offset: offset)
    }

    static func unexpected(_ what: String, at offset: Int) -> PredicateParseError {
        PredicateParseError(message: "unexpected \(what)", offset: offset)
    }

    static func unsupported(_ what: String, at offset: Int) -> PredicateParseError {
        PredicateParseError(message: "\(what) is not supported yet", offset: offset)
    }

    /// Apple raises `NSInvalidArgumentException` "Unable to parse the format string"; we report the
    /// same sentence as an error in Cocoa's domain with `NSFormattingError`, naming the offset.
    func nsError(format: String) -> NSError {
        NSError(
            domain: NSCocoaErrorDomain, code: NSFormattingError,
            userInfo: [
                NSLocalizedDescriptionKey: "Unable to parse the format string \"\(format)\": \(message) at offset \(offset).",
                PredicateFormatErrorOffsetKey: offset,
                PredicateFormatErrorFormatKey: format,
            ])
    }
}
