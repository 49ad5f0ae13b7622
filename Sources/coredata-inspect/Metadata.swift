import ArgumentParser
import OpenCoreData

/// `metadata STORE`: the store's metadata (`Z_METADATA` and its UUID): version hashes by entity,
/// version identifiers, the store's UUID and type, the framework version that wrote it.
struct Metadata: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the store's metadata.")

    @OptionGroup var store: StoreArgument
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let inspected = try InspectedStore(path: store.store)
        let values = inspected.metadata.mapValues(Self.plain)
        if json {
            print(try DumpedValue.jsonText(values))
            return
        }
        for key in values.keys.sorted() {
            switch values[key] {
            case let dictionary as [String: Any]:
                print("\(key):")
                for name in dictionary.keys.sorted() { print("  \(name): \(DumpedValue.text(dictionary[name]))") }
            case let array as [Any]:
                print("\(key): \(array.map { DumpedValue.text($0) }.joined(separator: ", "))")
            case let value:
                print("\(key): \(DumpedValue.text(value))")
            }
        }
    }

    /// A metadata value as JSON-ready values (hashes in Base64).
    private static func plain(_ value: Any) -> Any {
        switch value {
        case let dictionary as [String: Any]: return dictionary.mapValues(plain)
        case let dictionary as NSDictionary:
            var result: [String: Any] = [:]
            for (key, item) in dictionary { result["\(key)"] = plain(item) }
            return result
        case let array as [Any]: return array.map(plain)
        case let set as Set<AnyHashable>: return set.map { plain($0.base) }.sorted { "\($0)" < "\($1)" }
        case let set as NSSet: return set.allObjects.map(plain).sorted { "\($0)" < "\($1)" }
        default: return DumpedValue.json(value)
        }
    }
}
