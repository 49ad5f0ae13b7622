import ArgumentParser
import OpenCoreData

/// `model STORE --xcdatamodel DIR`: the model the store was written with, as an Xcode model
/// folder (`DIR/contents`), from the store's model cache or its tables.
struct Model: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write the store's model as an Xcode model (.xcdatamodel).")

    @OptionGroup var store: StoreArgument
    @Option(help: "The .xcdatamodel folder to write (created; its contents file replaced).") var xcdatamodel: String

    func run() throws {
        let inspected = try InspectedStore(path: store.store)
        let folder = URL(fileURLWithPath: xcdatamodel)
        do {
            try XcodeModelWriter.write(inspected.recoveredModel, to: folder)
        } catch let failure as XcodeModelWriter.Failure {
            throw InspectError("Can't write the model as an Xcode model: \(failure.description).")
        } catch {
            throw InspectError("Can't write the model to \(xcdatamodel): \(InspectError(error).description)")
        }
        let origin = inspected.source == .modelCache ? "the store's model cache" : "the store's tables (names and types approximate)"
        print("Wrote \(inspected.recoveredModel.entities.count) entities from \(origin) to \(folder.path)")
    }
}
