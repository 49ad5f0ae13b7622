/// Compiled regular expressions for MATCHES, shared by in-memory evaluation and the SQLite
/// function, so a pattern compiles once rather than once per row.
final class RegexCache: @unchecked Sendable {
    // @unchecked Sendable: `expressions` is only touched under `lock`.
    static let shared = RegexCache()
    private let lock = NSLock()
    private var expressions: [String: NSRegularExpression] = [:]

    /// Whether the whole of `text` matches `pattern` (ICU syntax), as Apple's MATCHES requires.
    func matches(_ text: String, pattern: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> Bool {
        let subject = ValueComparison.fold(text, caseInsensitive: false, diacriticInsensitive: diacriticInsensitive)
        let source = ValueComparison.fold(pattern, caseInsensitive: false, diacriticInsensitive: diacriticInsensitive)
        let key = "\(caseInsensitive ? 1 : 0)\(source)"
        lock.lock()
        var expression = expressions[key]
        if expression == nil {
            expression = try? NSRegularExpression(pattern: "^(?:" + source + ")$", options: caseInsensitive ? [.caseInsensitive] : [])
            if expressions.count > 256 { expressions.removeAll() }
            expressions[key] = expression
        }
        lock.unlock()
        guard let expression else { return false }
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        return expression.firstMatch(in: subject, options: [], range: range) != nil
    }
}
