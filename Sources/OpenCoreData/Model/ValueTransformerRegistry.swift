/// Named encoders for transformable attributes, as a pair of closures: an OpenCoreData addition
/// beside `ValueTransformer`, which it takes precedence over for the names it registers.
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

    /// The data the store keeps for a transformable attribute's `value`: through a transformer
    /// registered here, else the `ValueTransformer` the attribute names, else Core Data's default,
    /// `NSSecureUnarchiveFromDataTransformer`. Nil stores NULL.
    package static func encode(_ value: Any, attribute: NSAttributeDescription?) -> Data? {
        let name = attribute?.valueTransformerName
        if let registered = transformer(named: name) { return value as? Data ?? registered.encode(value) }
        let transformer = valueTransformer(named: name)
        let encoded = transformer.archives ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
        return encoded as? Data
    }

    /// The value of a transformable attribute whose stored data is `data`; the data itself when
    /// no transformer turns it into a value.
    package static func decode(_ data: Data, attribute: NSAttributeDescription?) -> Any {
        let name = attribute?.valueTransformerName
        if let registered = transformer(named: name) { return registered.decode(data) ?? data }
        let transformer = valueTransformer(named: name)
        let decoded = transformer.archives ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
        return decoded ?? data
    }

    /// The transformer a model names, or Core Data's default for a name that is missing or not
    /// registered.
    private static func valueTransformer(named name: String?) -> ValueTransformer {
        if let name, !name.isEmpty, let transformer = ValueTransformer.valueTransformer(forName: NSValueTransformerName(name)) {
            return transformer
        }
        return ValueTransformer.valueTransformer(forName: .secureUnarchiveFromDataTransformerName) ?? NSSecureUnarchiveFromDataTransformer()
    }
}

extension ValueTransformer {
    /// Whether Core Data applies this transformer the other way round: the unarchive-from-data
    /// transformers unarchive in their forward direction, which is the reading one.
    var archives: Bool { self is NSSecureUnarchiveFromDataTransformer }
}
