import ManagedObjectCodegenCore
import SwiftParser
import SwiftSyntax

/// Finds the `@NSManaged` declarations of a set of source files, with the classes they belong to.
struct ManagedDeclarationScanner {
    let module: String
    private(set) var properties: [ManagedProperty] = []
    private(set) var methods: [ManagedMethod] = []
    private(set) var errors: [ManagedDeclarationError] = []
    /// The classes of the scanned files the generated file can name (`ValidationFreeClassFinder`).
    private(set) var nameableClasses: [ValidationFreeClassFinder.Found] = []
    /// Every class the sources declare, by its path, to resolve property types.
    private var classPaths: Set<[String]> = []
    private var files: [(path: String, tree: SourceFileSyntax)] = []

    /// - Parameters:
    ///   - module: The module the sources belong to.
    ///   - files: The sources with `@NSManaged` declarations.
    ///   - generatedClasses: Classes the generator writes itself (from a model), which the
    ///     sources' properties may name.
    ///   - typeFiles: Other sources, read only for the types they declare: the classes of Xcode's
    ///     "Manual/None" class files, which other classes' relationships name, and the custom
    ///     classes of a model's Transformable attributes.
    init(
        module: String, files: [(path: String, text: String)], generatedClasses: [String] = [],
        typeFiles: [(path: String, text: String)] = []
    ) {
        self.module = module
        self.files = files.map { ($0.path, Parser.parse(source: $0.text)) }
        classPaths = Set(generatedClasses.map { [$0] })
        for tree in self.files.map(\.tree) + typeFiles.map({ Parser.parse(source: $0.text) }) {
            let collector = ClassCollector(viewMode: .sourceAccurate)
            collector.walk(tree)
            classPaths.formUnion(collector.paths)
        }
        for file in self.files {
            scan(file.path, file.tree)
            let finder = ValidationFreeClassFinder(viewMode: .sourceAccurate)
            finder.walk(file.tree)
            nameableClasses += finder.classes
        }
    }

    /// The type a model names as a Transformable attribute's custom class (`NSArray`, `[String]`,
    /// `App.Palette`), or nil when it is none this generator can name.
    func resolve(typeName: String) -> SwiftType? {
        let tree = Parser.parse(source: "let value: \(typeName)")
        guard let declaration = tree.statements.first?.item.as(VariableDeclSyntax.self),
            let type = declaration.bindings.first?.typeAnnotation?.type, !tree.hasError
        else { return nil }
        return try? resolve(type, at: ManagedObjectCodegenCore.SourceLocation(file: "", line: 0, column: 0))
    }

    private mutating func scan(_ path: String, _ tree: SourceFileSyntax) {
        let converter = SourceLocationConverter(fileName: path, tree: tree)
        let finder = ManagedMemberFinder(viewMode: .sourceAccurate)
        finder.walk(tree)
        for member in finder.members {
            let position = member.declaration.positionAfterSkippingLeadingTrivia
            let place = converter.location(for: position)
            let location = ManagedObjectCodegenCore.SourceLocation(file: path, line: place.line, column: place.column)
            do {
                try add(member, at: location)
            } catch let error as ManagedDeclarationError {
                errors.append(error)
            } catch {
                errors.append(ManagedDeclarationError(location, "\(error)"))
            }
        }
    }

    private mutating func add(_ member: ManagedMemberFinder.Member, at location: ManagedObjectCodegenCore.SourceLocation) throws {
        // `private(set)` limits the setter's callers, not its symbol: only the declaration's own
        // access matters.
        let modifiers = member.modifiers.filter { $0.detail == nil }.map(\.name.text)
        // A private declaration's symbol carries a discriminator of its file's name.
        let privateFile = modifiers.contains("private") || modifiers.contains("fileprivate")
            ? location.file.split(separator: "/").last.map(String.init) : nil
        if modifiers.contains("static") || modifiers.contains("class") {
            throw ManagedDeclarationError(location, "@NSManaged applies to instance members only")
        }
        let isPublic = modifiers.contains("public") || modifiers.contains("open")
        // `public private(set)`: the setter's own access, which the generated setter must not
        // exceed (a public one beside the declaration's hidden one fails a debug build).
        let limitsSetter = member.modifiers.contains { $0.detail?.detail.text == "set" && $0.name.text != "public" && $0.name.text != "open" }
        guard let owner = member.owner else {
            throw ManagedDeclarationError(location, "@NSManaged outside a class or an extension of one")
        }
        if let variable = member.declaration.as(VariableDeclSyntax.self) {
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                    let typeSyntax = binding.typeAnnotation?.type
                else {
                    throw ManagedDeclarationError(location, "@NSManaged properties need a name and a declared type")
                }
                let type = try resolve(typeSyntax, at: location)
                properties.append(
                    ManagedProperty(
                        location: location, owner: owner, name: strip(name), type: type, isPublic: isPublic, privateFile: privateFile,
                        setterIsPublic: isPublic && !limitsSetter))
            }
        } else if let function = member.declaration.as(FunctionDeclSyntax.self) {
            if function.signature.returnClause != nil {
                throw ManagedDeclarationError(location, "@NSManaged func '\(function.name.text)' must return nothing")
            }
            var parameters: [ManagedMethod.Parameter] = []
            for parameter in function.signature.parameterClause.parameters {
                let label = parameter.firstName.text == "_" ? nil : strip(parameter.firstName.text)
                let name = strip(parameter.secondName?.text ?? parameter.firstName.text)
                parameters.append(.init(label: label, name: name == "_" ? "value" : name, type: try resolve(parameter.type, at: location)))
            }
            methods.append(
                ManagedMethod(
                    location: location, owner: owner, name: strip(function.name.text), parameters: parameters, isPublic: isPublic,
                    privateFile: privateFile))
        }
    }

    /// The `SwiftType` of a type written in source: the types Core Data properties have, classes
    /// of this module, and optionals, sets and arrays of those.
    private func resolve(_ syntax: TypeSyntax, at location: ManagedObjectCodegenCore.SourceLocation) throws -> SwiftType {
        if let optional = syntax.as(OptionalTypeSyntax.self) {
            return .optional(try resolve(optional.wrappedType, at: location), implicitlyUnwrapped: false)
        }
        if let unwrapped = syntax.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return .optional(try resolve(unwrapped.wrappedType, at: location), implicitlyUnwrapped: true)
        }
        if let array = syntax.as(ArrayTypeSyntax.self) {
            return .array(try resolve(array.element, at: location))
        }
        var path: [String] = []
        var arguments: [TypeSyntax] = []
        if let identifier = syntax.as(IdentifierTypeSyntax.self) {
            path = [identifier.name.text]
            arguments = identifier.genericArgumentClause?.arguments.compactMap { $0.argument.as(TypeSyntax.self) } ?? []
        } else if let member = syntax.as(MemberTypeSyntax.self) {
            var current: TypeSyntax? = TypeSyntax(member)
            while let node = current {
                if let member = node.as(MemberTypeSyntax.self) {
                    path.insert(member.name.text, at: 0)
                    current = member.baseType
                } else if let identifier = node.as(IdentifierTypeSyntax.self) {
                    path.insert(identifier.name.text, at: 0)
                    current = nil
                } else {
                    throw ManagedDeclarationError(location, "the type '\(syntax.trimmedDescription)' is not supported for @NSManaged")
                }
            }
        }
        if path.count > 1, ["Swift", "Foundation", module].contains(path[0]) { path.removeFirst() }
        if path == ["Set"], arguments.count == 1 { return .set(try resolve(arguments[0], at: location)) }
        if path == ["Array"], arguments.count == 1 { return .array(try resolve(arguments[0], at: location)) }
        if path == ["Optional"], arguments.count == 1 {
            return .optional(try resolve(arguments[0], at: location), implicitlyUnwrapped: false)
        }
        if arguments.isEmpty, path.count == 1, let known = Self.known[path[0]] { return known }
        if arguments.isEmpty, !path.isEmpty, let found = classPath(for: path) {
            return .nominal(module: module, path: found, kind: .class)
        }
        throw ManagedDeclarationError(
            location,
            "the type '\(syntax.trimmedDescription)' of an @NSManaged declaration is not supported: use a Core Data property type (String, Int64, Bool, Date, Data, UUID, URL, Decimal, NSNumber, NSDecimalNumber, NSSet, NSOrderedSet…) or a class of this module")
    }

    /// The full path of a class named `path` (as written, possibly without its outer classes).
    private func classPath(for path: [String]) -> [String]? {
        if classPaths.contains(path) { return path }
        let matches = classPaths.filter { $0.count > path.count && Array($0.suffix(path.count)) == path }
        return matches.count == 1 ? matches.first : nil
    }

    private func strip(_ name: String) -> String {
        name.hasPrefix("`") && name.hasSuffix("`") ? String(name.dropFirst().dropLast()) : name
    }

    static let known: [String: SwiftType] = [
        "String": .string, "Int": .int, "Bool": .bool, "Double": .double, "Float": .float, "Int16": .int16,
        "Int32": .int32, "Int64": .int64, "Date": .date, "Data": .data, "UUID": .uuid, "URL": .url, "Decimal": .decimal,
        "NSNumber": .nsNumber, "NSDecimalNumber": .nsDecimalNumber, "NSSet": .nsSet, "NSOrderedSet": .nsOrderedSet,
        "NSIndexSet": .nsIndexSet, "NSObject": .nsObject,
        // Foundation classes a Transformable attribute's custom class may be.
        "NSArray": .foundationClass("NSArray"), "NSMutableArray": .foundationClass("NSMutableArray"),
        "NSDictionary": .foundationClass("NSDictionary"), "NSMutableDictionary": .foundationClass("NSMutableDictionary"),
        "NSString": .foundationClass("NSString"), "NSData": .foundationClass("NSData"), "NSDate": .foundationClass("NSDate"),
        "NSURL": .foundationClass("NSURL"), "NSUUID": .foundationClass("NSUUID"), "NSValue": .foundationClass("NSValue"),
        "NSAttributedString": .foundationClass("NSAttributedString"),
    ]
}

/// Every class declared in a file, by its path of enclosing types.
private final class ClassCollector: SyntaxVisitor {
    var paths: Set<[String]> = []
    private var stack: [String] = []

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        stack.append(node.name.text)
        paths.insert(stack)
        return .visitChildren
    }

    override func visitPost(_ node: ClassDeclSyntax) { stack.removeLast() }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        stack.append(node.name.text)
        return .visitChildren
    }

    override func visitPost(_ node: StructDeclSyntax) { stack.removeLast() }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        stack.append(node.name.text)
        return .visitChildren
    }

    override func visitPost(_ node: EnumDeclSyntax) { stack.removeLast() }
}

/// The members marked `@NSManaged`, with the class (or extended class) each is in.
private final class ManagedMemberFinder: SyntaxVisitor {
    struct Member {
        let declaration: DeclSyntax
        let modifiers: DeclModifierListSyntax
        /// Nil when the member is not in a class or an extension.
        let owner: [String]?
    }

    var members: [Member] = []
    private var stack: [[String]?] = []

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        stack.append((stack.last.flatMap { $0 } ?? []) + [node.name.text])
        return .visitChildren
    }

    override func visitPost(_ node: ClassDeclSyntax) { stack.removeLast() }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        stack.append(node.extendedType.trimmedDescription.split(separator: ".").map(String.init))
        return .visitChildren
    }

    override func visitPost(_ node: ExtensionDeclSyntax) { stack.removeLast() }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        stack.append(nil)
        return .visitChildren
    }

    override func visitPost(_ node: StructDeclSyntax) { stack.removeLast() }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        stack.append(nil)
        return .visitChildren
    }

    override func visitPost(_ node: EnumDeclSyntax) { stack.removeLast() }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        if Self.isManaged(node.attributes) {
            members.append(Member(declaration: DeclSyntax(node), modifiers: node.modifiers, owner: stack.last ?? nil))
        }
        return .skipChildren
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        if Self.isManaged(node.attributes) {
            members.append(Member(declaration: DeclSyntax(node), modifiers: node.modifiers, owner: stack.last ?? nil))
        }
        return .skipChildren
    }

    static func isManaged(_ attributes: AttributeListSyntax) -> Bool {
        attributes.contains { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "NSManaged" }
    }
}
