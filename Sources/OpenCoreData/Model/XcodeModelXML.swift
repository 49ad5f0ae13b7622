#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One element of a model's `contents` XML, kept as a small tree so the model builder can look
/// things up in any order (relationships name entities declared further down).
struct ModelXMLElement {
    let name: String
    let attributes: [String: String]
    var children: [ModelXMLElement] = []
    /// Where the element starts, for error messages.
    let line: Int

    subscript(attribute: String) -> String? { attributes[attribute] }

    /// Xcode writes booleans as `YES`/`NO` and leaves out those at their default.
    func flag(_ attribute: String, default value: Bool = false) -> Bool {
        guard let text = attributes[attribute] else { return value }
        return ["YES", "yes", "true", "1"].contains(text)
    }

    func children(named name: String) -> [ModelXMLElement] { children.filter { $0.name == name } }

    /// `<userInfo><entry key="…" value="…"/></userInfo>` as a dictionary; nil when absent.
    var userInfo: [AnyHashable: Any]? {
        guard let container = children(named: "userInfo").first else { return nil }
        var info: [AnyHashable: Any] = [:]
        for entry in container.children(named: "entry") {
            if let key = entry["key"] { info[key] = entry["value"] ?? "" }
        }
        return info
    }
}

/// Parses model XML with Foundation's event-driven `XMLParser` into a `ModelXMLElement` tree.
enum ModelXMLReader {
    /// The XML parser's complaint, with the line it stopped at.
    struct Failure: Error {
        let message: String
        let line: Int?
        let underlying: Error?
    }

    /// How deep elements may nest.
    static let maximumDepth = 64

    static func parse(_ data: Data) throws(Failure) -> ModelXMLElement {
        // Linux's XMLParser traps (an illegal instruction, not an error) when libxml2 hands it a
        // name that is not UTF-8, such as a stray 0xC3 inside an element or attribute name. Xcode
        // writes models in UTF-8 only, so anything else is refused before the parser sees it.
        if let offset = firstInvalidUTF8(in: data) {
            let line = data.prefix(offset).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            throw Failure(message: "the file is not UTF-8 text (byte \(offset))", line: line, underlying: nil)
        }
        let parser = XMLParser(data: data)
        // A model never needs external entities; resolving them would let a file read other files.
        parser.shouldResolveExternalEntities = false
        let builder = TreeBuilder()
        parser.delegate = builder
        let succeeded = parser.parse()
        if let failure = builder.parseError as? Failure { throw failure }
        if !succeeded || builder.parseError != nil {
            let error = builder.parseError ?? parser.parserError
            // Only the code survives from libxml2 on Linux, not its text; the position is the
            // useful part for someone fixing the file.
            let code = error.map { " \(($0 as NSError).code)" } ?? ""
            throw Failure(
                message: "malformed XML near column \(parser.columnNumber) (XML parser error\(code))",
                line: parser.lineNumber, underlying: error)
        }
        guard let root = builder.root else {
            throw Failure(message: "the file holds no XML element", line: nil, underlying: nil)
        }
        return root
    }

    /// The offset of the first byte of `data` that is not part of well-formed UTF-8, or nil.
    static func firstInvalidUTF8(in data: Data) -> Int? {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int? in
            var iterator = raw.makeIterator()
            var decoder = UTF8()
            var offset = 0
            var consumed = 0
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar):
                    offset += UTF8.width(scalar)
                    consumed = offset
                case .emptyInput:
                    return nil
                case .error:
                    return consumed
                }
            }
        }
    }

    /// Collects elements into a tree; a class because `XMLParser` wants an `NSObject` delegate.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [ModelXMLElement] = []
        var root: ModelXMLElement?
        var parseError: Error?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            // Xcode nests model elements five deep at most. A file nested thousands deep is not a
            // model, and its tree would overflow the stack when freed (each level frees the next).
            guard stack.count < ModelXMLReader.maximumDepth else {
                if parseError == nil {
                    parseError = Failure(
                        message: "elements are nested more than \(ModelXMLReader.maximumDepth) deep",
                        line: parser.lineNumber, underlying: nil)
                }
                parser.abortParsing()
                return
            }
            stack.append(ModelXMLElement(name: elementName, attributes: attributeDict, line: parser.lineNumber))
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?
        ) {
            guard let finished = stack.popLast() else { return }
            if stack.isEmpty {
                root = finished
            } else {
                stack[stack.count - 1].children.append(finished)
            }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            if self.parseError == nil { self.parseError = parseError }
        }
    }
}
