import Crypto
import Foundation

/// Swift's symbol mangling, for the entities `@NSManaged` leaves undefined: the getter and setter
/// of a property of a class, and a method of a class that returns nothing.
///
/// The rules are the compiler's (docs/ABI/Mangling.rst in the Swift repository): identifiers with
/// word substitutions; identifiers and types remembered in a substitution table and written again
/// as `A<letter>`; runs of substitutions merged. Which entries the table gets was read off the
/// compiler's symbols: every identifier (module, class, member and argument label names) one, a
/// nominal type, an optional and a generic type one each, the standard types and `()` none.
/// `MangledNameTests` compiles probes with `swiftc` and compares every name with the compiler's.
public struct SwiftMangler {
    private var buffer: [UInt8] = []
    /// Words (start in `buffer`, length) of the identifiers mangled so far.
    private var words: [(start: Int, length: Int)] = []
    private var substitutions: [Entry: Int] = [:]
    private var merging = SubstitutionRun()

    private static let maximumWords = 26

    /// Why a name cannot be mangled here.
    public struct Unsupported: Error, Equatable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// What the substitution table remembers.
    private enum Entry: Hashable {
        case identifier(String)
        case type(SwiftType)
        case tuple([SwiftType])
    }

    /// The last substitution written, to merge the next one into it (`AB` `AC` → `AbC`,
    /// `AB` `AB` → `A2B`, `Si` `Si` → `S2i`).
    private struct SubstitutionRun {
        var end = -1
        var start = 0
        var letter: [UInt8] = []
        var count = 0
        var isStandard = false
    }

    private init() {}

    /// The symbol of the getter, or with `setter` the setter, of property `name` of type `type`
    /// declared in class `classes.last` (nested in the classes before it) of `module`.
    ///
    /// - Throws: `Unsupported` for a name that is not plain ASCII, or a type with more distinct
    ///   parts than the substitution letters cover.
    ///
    /// A `private` or `fileprivate` declaration's name carries a discriminator of its file:
    /// `privateIn` names that file (its base name, `Item.swift`).
    public static func accessor(
        module: String, classes: [String], property name: String, type: SwiftType, setter: Bool, privateIn file: String? = nil
    ) throws(Unsupported) -> String {
        var mangler = SwiftMangler()
        mangler.append("$s")
        try mangler.appendContext(module: module, classes: classes)
        try mangler.appendDeclarationName(name, module: module, privateIn: file)
        try mangler.appendType(type)
        mangler.append(setter ? "vs" : "vg")
        return String(decoding: mangler.buffer, as: UTF8.self)
    }

    /// The symbol of method `name` of class `classes.last` of `module`, which returns nothing and
    /// takes `parameters` (an argument label, nil for `_`, and a type).
    ///
    /// - Throws: `Unsupported` as `accessor` does.
    public static func method(
        module: String, classes: [String], name: String, parameters: [(label: String?, type: SwiftType)],
        privateIn file: String? = nil
    ) throws(Unsupported) -> String {
        var mangler = SwiftMangler()
        mangler.append("$s")
        try mangler.appendContext(module: module, classes: classes)
        try mangler.appendDeclarationName(name, module: module, privateIn: file)
        // The argument labels: `y` when none has one, else each label or `_`.
        if parameters.allSatisfy({ $0.label == nil }) {
            mangler.append("y")
        } else {
            for parameter in parameters {
                if let label = parameter.label { try mangler.appendIdentifier(label) } else { mangler.append("_") }
            }
        }
        // The result type `()`, then the parameters: one unlabeled type alone, else a tuple.
        mangler.append("y")
        if parameters.count == 1, parameters[0].label == nil {
            try mangler.appendType(parameters[0].type)
        } else if parameters.isEmpty {
            mangler.append("y")
        } else {
            try mangler.appendTuple(parameters.map(\.type))
        }
        mangler.append("F")
        return String(decoding: mangler.buffer, as: UTF8.self)
    }

    // MARK: Contexts and types

    /// A declaration's name; a private one's followed by its file's discriminator and `LL`: `_`
    /// and the MD5 of the module's name and the file's base name, in uppercase hexadecimal (read
    /// off the compiler's symbols).
    private mutating func appendDeclarationName(_ name: String, module: String, privateIn file: String?) throws(Unsupported) {
        try appendIdentifier(name)
        guard let file else { return }
        let digest = Insecure.MD5.hash(data: Array((module + file).utf8))
        try appendIdentifier("_" + digest.map { String(format: "%02X", $0) }.joined())
        append("LL")
    }

    private mutating func appendContext(module: String, classes: [String]) throws(Unsupported) {
        if classes.isEmpty { return try appendModule(module) }
        try appendNominal(module: module, path: classes, kind: .class)
    }

    /// A module is its name; the standard library's is `s`.
    private mutating func appendModule(_ module: String) throws(Unsupported) {
        if module == "Swift" { return append("s") }
        try appendIdentifier(module)
    }

    /// A nominal type: its module or the type it is nested in, its name and kind.
    private mutating func appendNominal(module: String, path: [String], kind: SwiftType.NominalKind) throws(Unsupported) {
        let type = SwiftType.nominal(module: module, path: path, kind: kind)
        if let index = substitutions[.type(type)] { return try appendSubstitution(index) }
        if path.count > 1 {
            try appendNominal(module: module, path: Array(path.dropLast()), kind: .class)
        } else {
            try appendModule(module)
        }
        try appendIdentifier(path.last!)
        append(String(kind.rawValue))
        add(.type(type))
    }

    private mutating func appendType(_ type: SwiftType) throws(Unsupported) {
        let entry = Entry.type(type.withoutImplicitUnwrapping)
        switch type {
        case .standard(_, let mangling):
            appendStandardSubstitution(mangling)
        case .nominal(let module, let path, let kind):
            try appendNominal(module: module, path: path, kind: kind)
        case .optional(let wrapped, _):
            if let index = substitutions[entry] { return try appendSubstitution(index) }
            try appendType(wrapped)
            append("Sg")
            add(entry)
        case .generic(let base, let arguments):
            if let index = substitutions[entry] { return try appendSubstitution(index) }
            try appendType(base)
            append("y")
            for argument in arguments { try appendType(argument) }
            append("G")
            add(entry)
        }
    }

    /// `(A, B, C)` as `A_BCt`.
    private mutating func appendTuple(_ elements: [SwiftType]) throws(Unsupported) {
        let entry = Entry.tuple(elements.map(\.withoutImplicitUnwrapping))
        if let index = substitutions[entry] { return try appendSubstitution(index) }
        for (index, element) in elements.enumerated() {
            try appendType(element)
            if index == 0 { append("_") }
        }
        append("t")
        add(entry)
    }

    private mutating func add(_ entry: Entry) {
        if substitutions[entry] == nil { substitutions[entry] = substitutions.count }
    }

    /// `A` and the entry's index as a letter, merged with a substitution right before it.
    private mutating func appendSubstitution(_ index: Int) throws(Unsupported) {
        guard index < 26 else { throw Unsupported(reason: "more than 26 remembered types and names in one symbol") }
        let letter = [UInt8(ascii: "A") + UInt8(index)]
        if merging.count > 0, !merging.isStandard, buffer.count == merging.end {
            if merging.letter != letter {
                buffer[buffer.count - 1] += UInt8(ascii: "a") - UInt8(ascii: "A")
                buffer += letter
                merging = SubstitutionRun(end: buffer.count, start: buffer.count - 1, letter: letter, count: 1, isStandard: false)
            } else {
                merging.count += 1
                buffer.removeSubrange(merging.start...)
                buffer += Array("\(merging.count)".utf8) + letter
                merging.end = buffer.count
            }
            return
        }
        buffer.append(UInt8(ascii: "A"))
        buffer += letter
        merging = SubstitutionRun(end: buffer.count, start: buffer.count - 1, letter: letter, count: 1, isStandard: false)
    }

    /// A standard type's `S` form (`SS`, `Si`), merged with the same one right before it.
    private mutating func appendStandardSubstitution(_ mangling: String) {
        let letter = Array(mangling.utf8.dropFirst())
        if merging.count > 0, merging.isStandard, buffer.count == merging.end, merging.letter == letter {
            merging.count += 1
            buffer.removeSubrange(merging.start...)
            buffer += Array("\(merging.count)".utf8) + letter
            merging.end = buffer.count
            return
        }
        buffer += Array(mangling.utf8)
        merging = SubstitutionRun(end: buffer.count, start: buffer.count - letter.count, letter: letter, count: 1, isStandard: true)
    }

    // MARK: Identifiers

    private mutating func append(_ text: String) { buffer += Array(text.utf8) }

    /// An identifier: a substitution when the same one was written before; otherwise its text,
    /// with each word an earlier identifier (or an earlier word of this one) had replaced by its
    /// index: `0`, then lowercase letters, the last one uppercase.
    private mutating func appendIdentifier(_ identifier: String) throws(Unsupported) {
        if let index = substitutions[.identifier(identifier)] { return try appendSubstitution(index) }
        add(.identifier(identifier))
        let text = Array(identifier.utf8)
        guard let first = text.first, !Self.isDigit(first),
            text.allSatisfy({ Self.isLetter($0) || Self.isDigit($0) || $0 == UInt8(ascii: "_") })
        else {
            throw Unsupported(reason: "the name '\(identifier)' is not made of ASCII letters, digits and underscores")
        }
        let wordsBefore = words.count
        var replacements: [(position: Int, word: Int)] = []
        var wordStart: Int?
        for position in 0...text.count {
            let character: UInt8 = position < text.count ? text[position] : 0
            if let start = wordStart, Self.isWordEnd(character, after: text[position - 1]) {
                let word = text[start..<position]
                if let found = findWord(word, in: text, newWordsFrom: wordsBefore) {
                    replacements.append((start, found))
                } else if word.count >= 2, words.count < Self.maximumWords {
                    // Its start is moved to the buffer's position when the word is written.
                    words.append((start, word.count))
                }
                wordStart = nil
            }
            if wordStart == nil, Self.isWordStart(character) { wordStart = position }
        }
        if !replacements.isEmpty { append("0") }
        replacements.append((text.count, -1))
        var position = 0
        var nextNewWord = wordsBefore
        for (index, replacement) in replacements.enumerated() {
            if position < replacement.position {
                append(String(replacement.position - position))
                while position < replacement.position {
                    if nextNewWord < words.count, words[nextNewWord].start == position {
                        words[nextNewWord].start = buffer.count
                        nextNewWord += 1
                    }
                    buffer.append(text[position])
                    position += 1
                }
            }
            guard replacement.word >= 0 else { continue }
            position += words[replacement.word].length
            if index < replacements.count - 2 {
                buffer.append(UInt8(ascii: "a") + UInt8(replacement.word))
            } else {
                buffer.append(UInt8(ascii: "A") + UInt8(replacement.word))
                if position == text.count { append("0") }
            }
        }
    }

    /// The index of `word` among the words already in the buffer, or among this identifier's new
    /// words (whose starts are still positions in `text`).
    private func findWord(_ word: ArraySlice<UInt8>, in text: [UInt8], newWordsFrom firstNew: Int) -> Int? {
        for index in 0..<firstNew where buffer[words[index].start..<(words[index].start + words[index].length)] == word {
            return index
        }
        for index in firstNew..<words.count where text[words[index].start..<(words[index].start + words[index].length)] == word {
            return index
        }
        return nil
    }

    private static func isLetter(_ c: UInt8) -> Bool { (c >= 97 && c <= 122) || isUpper(c) }
    private static func isUpper(_ c: UInt8) -> Bool { c >= 65 && c <= 90 }
    private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
    private static func isWordStart(_ c: UInt8) -> Bool { !isDigit(c) && c != UInt8(ascii: "_") && c != 0 }
    private static func isWordEnd(_ c: UInt8, after previous: UInt8) -> Bool {
        c == UInt8(ascii: "_") || c == 0 || (!isUpper(previous) && isUpper(c))
    }
}
