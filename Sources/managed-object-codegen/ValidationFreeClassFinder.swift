import SwiftParser
import SwiftSyntax

/// The classes of a target's sources that the generated file can name, with the class each
/// inherits from, so that the generator can tell which hierarchies under `NSManagedObject` are all
/// in this target (`hierarchies(of:)`).
///
/// Left out, as the generated file could not name them: `private` and `fileprivate` classes and
/// those inside such types, generic classes and classes inside generic types, classes inside
/// extensions (which may be private, constrained or of another module's type), functions or
/// `#if` blocks (a class declared in two branches would be named twice).
final class ValidationFreeClassFinder: SyntaxVisitor {
    struct Found: Hashable {
        let path: [String]
        /// The first inherited type as written (`NSManagedObject`, `Base`, `App.Base`).
        let superclass: String
    }

    private(set) var classes: [Found] = []
    /// The enclosing types' names; nil for one whose members cannot be named from another file.
    private var stack: [String?] = []

    /// The classes `text` declares.
    static func classes(in text: String) -> [Found] {
        let finder = ValidationFreeClassFinder(viewMode: .sourceAccurate)
        finder.walk(Parser.parse(source: text))
        return finder.classes
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        let nameable = Self.isNameable(node.modifiers) && node.genericParameterClause == nil && stack.allSatisfy { $0 != nil }
        if nameable, let superclass = node.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription {
            classes.append(Found(path: stack.compactMap { $0 } + [node.name.text], superclass: superclass))
        }
        stack.append(nameable ? node.name.text : nil)
        return .visitChildren
    }

    override func visitPost(_ node: ClassDeclSyntax) { stack.removeLast() }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        stack.append(Self.isNameable(node.modifiers) && node.genericParameterClause == nil ? node.name.text : nil)
        return .visitChildren
    }

    override func visitPost(_ node: StructDeclSyntax) { stack.removeLast() }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        stack.append(Self.isNameable(node.modifiers) && node.genericParameterClause == nil ? node.name.text : nil)
        return .visitChildren
    }

    override func visitPost(_ node: EnumDeclSyntax) { stack.removeLast() }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: IfConfigDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: AccessorBlockSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
    override func visit(_ node: CodeBlockItemListSyntax) -> SyntaxVisitorContinueKind {
        // Top-level code of a `main.swift` is a function body too; its declarations are local.
        node.parent?.is(SourceFileSyntax.self) == true ? .visitChildren : .skipChildren
    }

    private static func isNameable(_ modifiers: DeclModifierListSyntax) -> Bool {
        !modifiers.contains { $0.name.text == "private" || $0.name.text == "fileprivate" }
    }

    /// For each class that inherits from `NSManagedObject` directly, it and the classes below it
    /// whose every superclass up to it is one of `classes` (a superclass named ambiguously, or
    /// declared where this finder cannot see it, ends the hierarchy there).
    static func hierarchies(of classes: [Found]) -> [(root: [String], members: [[String]])] {
        var byName: [String: [[String]]] = [:]
        for found in classes {
            byName[found.path.joined(separator: "."), default: []].append(found.path)
            if found.path.count > 1 { byName[found.path.last!, default: []].append(found.path) }
        }
        func resolve(_ name: String) -> [String]? {
            let candidates = Set(byName[name] ?? [])
            return candidates.count == 1 ? candidates.first : nil
        }
        var children: [[String]: [[String]]] = [:]
        for found in classes {
            if let parent = resolve(found.superclass) { children[parent, default: []].append(found.path) }
        }
        // A path declared twice (two files) is left out: the generated file could not tell them apart.
        let declaredOnce = Set(Dictionary(grouping: classes, by: \.path).filter { $0.value.count == 1 }.keys)
        var result: [(root: [String], members: [[String]])] = []
        for found in classes where declaredOnce.contains(found.path)
            && (found.superclass == "NSManagedObject" || found.superclass == "OpenCoreData.NSManagedObject")
        {
            var members: [[String]] = []
            var pending = [found.path]
            while let next = pending.popLast() {
                guard declaredOnce.contains(next), !members.contains(next) else { continue }
                members.append(next)
                pending += children[next] ?? []
            }
            result.append((found.path, members))
        }
        return result.sorted { $0.root.joined(separator: ".") < $1.root.joined(separator: ".") }
    }
}
