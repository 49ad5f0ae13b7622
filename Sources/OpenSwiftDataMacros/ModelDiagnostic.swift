import SwiftDiagnostics

/// What `@Model` tells the developer at build time, naming the declaration it is about.
enum ModelDiagnostic: DiagnosticMessage {
    case notAClass
    case notAnActor
    case patternNotAName
    case multipleBindings(String)
    case letNotReloaded(String)
    case letWithoutValue(String)

    var message: String {
        switch self {
        case .notAClass: "@Model can only be applied to a class"
        case .notAnActor: "@ModelActor can only be applied to an actor"
        case .patternNotAName: "@Model cannot persist a property declared with a pattern; declare one name per property"
        case .multipleBindings(let name):
            "@Model cannot persist '\(name)' declared beside other properties in one 'var'; declare each persisted property on its own"
        case .letNotReloaded(let name):
            "'let \(name)' is saved but a fetched model gets its initial value, not the stored one; declare it 'var' to read it back"
        case .letWithoutValue(let name):
            "@Model cannot make a fetched model's 'let \(name)', which has no initial value; declare it 'var'"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAClass: id = "notAClass"
        case .notAnActor: id = "notAnActor"
        case .patternNotAName: id = "patternNotAName"
        case .multipleBindings: id = "multipleBindings"
        case .letNotReloaded: id = "letNotReloaded"
        case .letWithoutValue: id = "letWithoutValue"
        }
        return MessageID(domain: "OpenSwiftData", id: id)
    }

    var severity: DiagnosticSeverity {
        if case .letNotReloaded = self { return .warning }
        return .error
    }
}
