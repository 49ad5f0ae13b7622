import Foundation

/// A stored leaf value (what Core Data hands out: numbers as `NSNumber` or Swift integers,
/// decimals as `NSDecimalNumber`) as the Swift type a model declares, and stand-ins for probes.
enum LeafConversion {
    static func value<T>(_ raw: Any, as type: T.Type) -> T? {
        if let value = raw as? T { return value }
        if let number = raw as? NSNumber {
            let converted: Any? =
                switch type {
                case is Int.Type: number.intValue
                case is Int8.Type: number.int8Value
                case is Int16.Type: number.int16Value
                case is Int32.Type: number.int32Value
                case is Int64.Type: number.int64Value
                case is UInt.Type: number.uintValue
                case is UInt8.Type: number.uint8Value
                case is UInt16.Type: number.uint16Value
                case is UInt32.Type: number.uint32Value
                case is UInt64.Type: number.uint64Value
                case is Double.Type: number.doubleValue
                case is Float.Type: number.floatValue
                case is Bool.Type: number.boolValue
                case is Decimal.Type: (number as? NSDecimalNumber)?.decimalValue ?? Decimal(number.doubleValue)
                default: nil
                }
            return converted as? T
        }
        if type == URL.self, let text = raw as? String { return URL(string: text) as? T }
        return nil
    }

    /// A value of a leaf type for a probe: empty, zero or the reference date.
    static func standIn<T>(_ type: T.Type) -> T? {
        let value: Any? =
            switch type {
            case is String.Type: ""
            case is Bool.Type: false
            case is Int.Type: 0 as Int
            case is Int8.Type: 0 as Int8
            case is Int16.Type: 0 as Int16
            case is Int32.Type: 0 as Int32
            case is Int64.Type: 0 as Int64
            case is UInt.Type: 0 as UInt
            case is UInt8.Type: 0 as UInt8
            case is UInt16.Type: 0 as UInt16
            case is UInt32.Type: 0 as UInt32
            case is UInt64.Type: 0 as UInt64
            case is Double.Type: 0 as Double
            case is Float.Type: 0 as Float
            case is Date.Type: Date(timeIntervalSinceReferenceDate: 0)
            case is Data.Type: Data()
            case is UUID.Type: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            case is URL.Type: URL(fileURLWithPath: "/")
            case is Decimal.Type: Decimal(0)
            default: nil
            }
        return value as? T
    }
}
