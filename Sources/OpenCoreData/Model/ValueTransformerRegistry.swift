/// Named encoders for transformable attributes: Linux has no Objective-C `NSValueTransformer`
/// lookup, so a transformer is registered under the name the model's `valueTransformerName` uses.
public enum ValueTransformerRegistry {
    /// A pair of functions that turn a value into data and back.
    public struct Transformer: Sendable {
        /// Encodes a value for the store.
        public var encode: @Sendable (Any) -> Data?
        /// Decodes a value read from the store.
        public var decode: @Sendable (Data) -> Any?

        /// Creates a transformer from its two directions.
        ///
        /// - Parameters:
        ///   - encode: Receives an attribute's value (anything but `Data`, which is stored as it is)
        ///     and returns the bytes to store, or `nil` to store NULL.
        ///   - decode: Receives the bytes read from the store and returns the attribute's value, or
        ///     `nil` to leave the value as the raw `Data`.
        public init(encode: @escaping @Sendable (Any) -> Data?, decode: @escaping @Sendable (Data) -> Any?) {
            self.encode = encode
            self.decode = decode
        }
    }

    private static let transformers = Locked<[String: Transformer]>([:])

    /// Registers `transformer` under `name` (a model's `valueTransformerName`).
    ///
    /// - Parameters:
    ///   - transformer: The encoder and decoder to use for attributes that name it.
    ///   - name: The transformer's name, as the model's attributes give it; a transformer already
    ///     registered under it is replaced.
    public static func register(_ transformer: Transformer, forName name: String) {
        transformers.withLock { $0[name] = transformer }
    }

    static func transformer(named name: String?) -> Transformer? {
        guard let name else { return nil }
        return transformers.withLock { $0[name] }
    }

    static func encode(_ value: Any, attribute: NSAttributeDescription?) -> Data? {
        if let data = value as? Data { return data }
        return transformer(named: attribute?.valueTransformerName)?.encode(value)
    }

    static func decode(_ data: Data, attribute: NSAttributeDescription?) -> Any {
        transformer(named: attribute?.valueTransformerName)?.decode(data) ?? data
    }
}
