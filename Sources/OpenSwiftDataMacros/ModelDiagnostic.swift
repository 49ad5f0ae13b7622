import SwiftDiagnostics

/// What `@Model` tells the developer at build time, naming the declaration it is about.
enum ModelDiagnostic: String, DiagnosticMessage {
    case notAClass
    case patternNotAName

    var message: String {
        switch self {
        case .notAClass: "@Model can only be applied to a class"
        case .patternNotAName: "@Model cannot persist a property declared with a pattern; declare one name per property"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "OpenSwiftData", id: rawValue) }
    var severity: DiagnosticSeverity { .error }
}
