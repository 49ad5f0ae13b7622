import Foundation
import PackagePlugin

/// Supplies the accessors of a target's `@NSManaged` declarations where no Objective-C runtime
/// does (Linux, Windows, Android): the compiler accepts the attribute there but leaves each
/// accessor undefined. On Apple platforms it adds nothing, so one Package.swift serves both.
@main
struct ManagedObjectCodegen: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        #if canImport(Darwin)
        return []
        #else
        guard let target = target as? SourceModuleTarget else { return [] }
        let sources = target.sourceFiles(withSuffix: "swift").map(\.url)
        let models = Self.models(in: target.directoryURL)
        guard !sources.isEmpty || !models.isEmpty else { return [] }
        let output = context.pluginWorkDirectoryURL.appending(path: "ManagedAccessors.swift")
        let modelFiles = models.flatMap { Self.files(in: $0) }
        return [
            .buildCommand(
                displayName: "Supplying @NSManaged accessors for \(target.name)",
                executable: try context.tool(named: "managed-object-codegen").url,
                arguments: ["--module", target.moduleName, "--output", output.path()]
                    + models.flatMap { ["--model", $0.path()] } + sources.map { $0.path() },
                inputFiles: sources + modelFiles,
                outputFiles: [output])
        ]
        #endif
    }

    /// The `.xcdatamodeld` bundles (and lone `.xcdatamodel` folders) in a target's folder.
    static func models(in folder: URL) -> [URL] {
        let found = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        let bundles = found.filter { $0.pathExtension == "xcdatamodeld" }
        let lone = found.filter { url in
            url.pathExtension == "xcdatamodel" && !bundles.contains { url.path().hasPrefix($0.path()) }
        }
        return (bundles + lone).sorted { $0.path() < $1.path() }
    }

    /// Every file inside a model, so that editing one re-runs the generator.
    static func files(in model: URL) -> [URL] {
        (FileManager.default.enumerator(at: model, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
            .filter { $0.lastPathComponent == "contents" || $0.lastPathComponent == ".xccurrentversion" }
    }
}
