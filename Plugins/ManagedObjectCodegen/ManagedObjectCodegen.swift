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
        guard !sources.isEmpty else { return [] }
        let output = context.pluginWorkDirectoryURL.appending(path: "ManagedAccessors.swift")
        return [
            .buildCommand(
                displayName: "Supplying @NSManaged accessors for \(target.name)",
                executable: try context.tool(named: "managed-object-codegen").url,
                arguments: ["--module", target.moduleName, "--output", output.path()] + sources.map { $0.path() },
                inputFiles: sources,
                outputFiles: [output])
        ]
        #endif
    }
}
