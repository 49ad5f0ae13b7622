import SwiftSyntax

/// The properties of a `@Model` class that are persisted, in declaration order: every stored
/// property, `let` included, that is neither static nor `@Transient`. Their order is the order of
/// the entity's properties, so an accessor's index is its property's place in the entity.
struct PersistedMembers {
    struct Member {
        let name: String
        let spelled: String
        let binding: PatternBindingSyntax
        let variable: VariableDeclSyntax
        var isLet: Bool { variable.bindingSpecifier.tokenKind == .keyword(.let) }
    }

    private(set) var members: [Member] = []
    /// Bindings that are not a single name (`var (a, b)`), which cannot be persisted.
    private(set) var patterns: [PatternSyntax] = []

    init(of type: ClassDeclSyntax) {
        for member in type.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), Self.isPersistable(variable) else { continue }
            for binding in variable.bindings {
                if let accessors = binding.accessorBlock, Self.isComputed(accessors) { continue }
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    patterns.append(binding.pattern)
                    continue
                }
                let spelled = pattern.identifier.text
                let name = spelled.hasPrefix("`") && spelled.hasSuffix("`") && spelled.count > 1 ? String(spelled.dropFirst().dropLast()) : spelled
                members.append(Member(name: name, spelled: spelled, binding: binding, variable: variable))
            }
        }
    }

    /// The index of the persisted property `variable` declares, if it declares one. (Found by
    /// name: the declaration a macro is handed may be a copy, with other syntax identities.)
    func index(of variable: VariableDeclSyntax) -> Int? {
        guard Self.isPersistable(variable), let binding = variable.bindings.first,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        if let accessors = binding.accessorBlock, Self.isComputed(accessors) { return nil }
        return members.firstIndex { $0.spelled == pattern.identifier.text }
    }

    static func isPersistable(_ variable: VariableDeclSyntax) -> Bool {
        !isStatic(variable) && marker(named: "Transient", on: variable) == nil
    }

    /// The attribute `@name` or `@OpenSwiftData.name` on `variable`, if it has one.
    static func marker(named name: String, on variable: VariableDeclSyntax) -> AttributeSyntax? {
        for element in variable.attributes {
            guard case .attribute(let attribute) = element else { continue }
            let spelled = attribute.attributeName.trimmedDescription
            if spelled == name || spelled.hasSuffix("." + name) { return attribute }
        }
        return nil
    }

    private static func isStatic(_ variable: VariableDeclSyntax) -> Bool {
        variable.modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    /// Whether the accessors make the property computed (a getter), not merely observed.
    static func isComputed(_ accessors: AccessorBlockSyntax) -> Bool {
        switch accessors.accessors {
        case .getter: return true
        case .accessors(let list):
            return list.contains { [.keyword(.get), .keyword(._read), .keyword(.unsafeAddress)].contains($0.accessorSpecifier.tokenKind) }
        }
    }
}
