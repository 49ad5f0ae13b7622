import SwiftSyntax

/// The classes of a file that may declare `_ValidateValueNotOverridden` in the generated file:
/// those that inherit from `NSManagedObject` directly and that every subclass of which is in this
/// target, so that the target's sources, once seen to be free of `validateValue`, vouch for all of
/// them. The caller checks the sources; this finds the classes.
///
/// Left out, as the conformance would not compile or not be sound there: `open` classes (a
/// subclass in another module may override), `private` and `fileprivate` ones and those inside
/// such types (the generated file cannot name them), classes inside generic types, functions or
/// `#if` blocks (a class declared in two branches would conform twice).
final class ValidationFreeClassFinder: SyntaxVisitor {
    private(set) var paths: [[String]] = []
    /// The enclosing types' names; nil for one whose members cannot be named from another file.
    private var stack: [String?] = []

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        let nameable = Self.isNameable(node.modifiers) && node.genericParameterClause == nil
        if nameable, stack.allSatisfy({ $0 != nil }), !Self.isOpen(node.modifiers),
            let first = node.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription,
            first == "NSManagedObject" || first == "OpenCoreData.NSManagedObject"
        {
            paths.append(stack.compactMap { $0 } + [node.name.text])
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

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        // An extension of a generic type (which this file may not show) would need its arguments.
        let type = node.extendedType
        stack.append(type.is(IdentifierTypeSyntax.self) || type.is(MemberTypeSyntax.self) ? type.trimmedDescription : nil)
        return .visitChildren
    }

    override func visitPost(_ node: ExtensionDeclSyntax) { stack.removeLast() }

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

    private static func isOpen(_ modifiers: DeclModifierListSyntax) -> Bool {
        modifiers.contains { $0.name.text == "open" }
    }
}
