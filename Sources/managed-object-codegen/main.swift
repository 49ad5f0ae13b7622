import Foundation
import ManagedObjectCodegenCore

// managed-object-codegen --module NAME --output FILE [--model MODEL]... SOURCE...
//
// Writes to FILE the classes Xcode's code generation makes for the entities of each MODEL
// (`.xcdatamodeld` or `.xcdatamodel`), and the accessors of every `@NSManaged` declaration, those
// classes' and the ones in the SOURCE files of module NAME. A declaration it cannot handle is
// reported as `file:line:column: error: …`, which the build shows at that place, and the tool
// exits with status 1.

var arguments = Array(CommandLine.arguments.dropFirst())
var module: String?
var output: String?
var sources: [String] = []
var models: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--module": module = arguments.isEmpty ? nil : arguments.removeFirst()
    case "--output": output = arguments.isEmpty ? nil : arguments.removeFirst()
    case "--model": if !arguments.isEmpty { models.append(arguments.removeFirst()) }
    default: sources.append(argument)
    }
}
guard let module, let output else {
    FileHandle.standardError.write(Data("usage: managed-object-codegen --module NAME --output FILE SOURCE...\n".utf8))
    exit(2)
}

var files: [(path: String, text: String)] = []
var otherFiles: [(path: String, text: String)] = []
for path in sources {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        FileHandle.standardError.write(Data("\(path): error: can't read this source file\n".utf8))
        exit(1)
    }
    // Only files that mention the attribute need parsing.
    if text.contains("@NSManaged") { files.append((path, text)) } else { otherFiles.append((path, text)) }
}
var errors: [String] = []
var classes = (text: "", properties: [ManagedProperty](), methods: [ManagedMethod]())
var entities: [ModelClassWriter.Entity] = []
do {
    entities = try models.flatMap { try ModelFileReader.entities(inModelAt: $0) }
} catch {
    errors.append("\(error)")
}
let customClassNames = Set(entities.flatMap { $0.attributes.compactMap(\.customClassName) })
// The generated classes are this module's classes too, for the types of the sources' properties.
// Other files are read for the types they declare: those Transformable attributes name, and the
// managed object classes of Xcode's "Manual/None" files, whose
// `Item+CoreDataClass.swift` declares the class (a subentity's with its parent's class as
// superclass) without any `@NSManaged`, the properties being in `Item+CoreDataProperties.swift`:
// other classes' relationships and to-many accessors name it.
let scanner = ManagedDeclarationScanner(
    module: module, files: files, generatedClasses: entities.filter { $0.codeGeneration == .classDefinition }.map(\.className),
    typeFiles: otherFiles.filter { file in
        file.text.range(of: #"\bclass\s"#, options: .regularExpression) != nil
            || customClassNames.contains { file.text.contains($0.split(separator: ".").last.map(String.init) ?? $0) }
    })
errors += scanner.errors.map(\.description)
var slots: [String: [String]] = [:]
do {
    let resolved = try entities.map { entity in
        entity.withAttributes(try entity.attributes.map { attribute in
            guard attribute.type == "Transformable", entity.codeGeneration != .manual, let name = attribute.customClassName else { return attribute }
            // `$(PRODUCT_MODULE_NAME).Palette` and `App.Palette` are this module's `Palette`.
            let local = name.hasPrefix("$(PRODUCT_MODULE_NAME).") ? String(name.dropFirst("$(PRODUCT_MODULE_NAME).".count)) : name
            guard let type = scanner.resolve(typeName: local) else {
                throw ManagedDeclarationError(
                    entity.location,
                    "the custom class '\(name)' of Transformable attribute '\(attribute.name)' of entity '\(entity.name)' is neither a class of this module nor one of Foundation's")
            }
            return attribute.withCustomType(type)
        })
    }
    classes = try ModelClassWriter.source(for: resolved, module: module)
    slots = ModelClassWriter.slotNames(of: resolved)
} catch {
    errors.append("\(error)")
}
// Hand-written classes that can have no override of `validateValue(_:forKey:)`: their objects are
// checked against the model's rules in place when saved. Only when no source of the target
// mentions it (an override, a call, a comment: any mention keeps every class on the asking path),
// and only the classes of hierarchies seen whole here (a subclass elsewhere, even in a test target
// that imports this one with `@testable`, is not listed, and is asked).
let mentionsValidateValue = (files + otherFiles).contains { $0.text.contains("validateValue") }
let validationFree =
    mentionsValidateValue
    ? []
    : ValidationFreeClassFinder.hierarchies(
        of: scanner.nameableClasses
            // Xcode's "Manual/None" files declare the class apart from its `@NSManaged` properties.
            + otherFiles.filter { $0.text.contains("NSManagedObject") }.flatMap { ValidationFreeClassFinder.classes(in: $0.text) })
var generated = ""
do {
    generated = try ManagedAccessorWriter.source(
        module: module, properties: scanner.properties + classes.properties, methods: scanner.methods + classes.methods, slots: slots,
        validationFree: validationFree)
    generated += classes.text.isEmpty ? "" : "\n// The classes of the model's entities, as Xcode generates them.\n" + classes.text
} catch {
    errors.append("\(error)")
}
if !errors.isEmpty {
    FileHandle.standardError.write(Data((errors.joined(separator: "\n") + "\n").utf8))
    exit(1)
}
// Rewritten only when it changes, so that an unchanged file does not make the target recompile.
if (try? String(contentsOfFile: output, encoding: .utf8)) != generated {
    do {
        try generated.write(toFile: output, atomically: true, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("\(output): error: can't write the generated accessors: \(error)\n".utf8))
        exit(1)
    }
}
