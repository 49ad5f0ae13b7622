import Foundation

extension SQLPredicateCompiler {
    /// The SET list of an `NSBatchUpdateRequest`: each attribute's new value, then `Z_OPT` raised,
    /// so that a context holding an older version of a row conflicts at its next save.
    ///
    /// - Parameter assignments: The request's attributes and the expressions of their values.
    /// - Returns: `COLUMN = value, …, Z_OPT = Z_OPT + 1`, with every constant bound.
    /// - Throws: `NSManagedObjectValidationError` for a value that can never be the attribute's,
    ///   `NSPersistentStoreUnsupportedRequestTypeError` for one SQL cannot compute from the row.
    package mutating func batchAssignments(_ assignments: [(attribute: NSAttributeDescription, value: NSExpression)]) throws -> SQLFragment {
        var list: [SQLFragment] = []
        for (attribute, value) in assignments {
            list.append("\(raw: attribute.columnName!) = \(try assignment(value, to: attribute))")
        }
        guard joins.sql.isEmpty else {
            throw CoreDataError.make(
                NSPersistentStoreUnsupportedRequestTypeError,
                "The \(dialect.words.storeName) store can't follow relationships in the values of a batch update of entity \(entity.name ?? "?"): use the row's own attributes.")
        }
        list.append("Z_OPT = Z_OPT + 1")
        return SQLFragment.joined(list, separator: ", ")
    }

    /// The SQL value an `NSBatchUpdateRequest` stores into `attribute`: a bound constant, a column
    /// of the row, arithmetic over them, or `TERNARY(predicate, a, b)` as a `CASE`.
    ///
    /// Nothing is validated against the model's rules (Core Data's batch updates skip validation),
    /// but a value whose kind can never be the attribute's (a string for a date, a number for a
    /// string) is refused with `NSManagedObjectValidationError` while the statement is built, so
    /// that a refused request writes nothing.
    private mutating func assignment(_ expression: NSExpression, to attribute: NSAttributeDescription) throws -> SQLFragment {
        if case .conditional(let predicate, let whenTrue, let whenFalse) = expression.storage {
            let condition = try compile(predicate)
            let a = try assignment(whenTrue, to: attribute)
            let b = try assignment(whenFalse, to: attribute)
            return "CASE WHEN \(condition) THEN \(a) ELSE \(b) END"
        }
        if !expression.readsEvaluatedObject {
            // `now()`, constant arithmetic: one value for every row, computed as in memory.
            return try bound(PredicateEvaluator.value(of: expression, object: nil, bindings: nil), for: attribute)
        }
        let placeholder = NSComparisonPredicate(
            leftExpression: expression, rightExpression: NSExpression(forConstantValue: nil), modifier: .direct, type: .equalTo)
        let compiled: Operand
        do {
            compiled = try operand(expression, of: placeholder)
        } catch let error as NSError where error.code == NSPersistentStoreUnsupportedRequestTypeError {
            throw refusedExpression(expression, attribute, underlying: error)
        } catch is SQLNeedsEvaluator {
            // A folding or MATCHES inside the value, on a dialect without the evaluator's functions.
            throw refusedExpression(expression, attribute, underlying: nil)
        }
        switch compiled {
        case .constant(let value):
            return try bound(value, for: attribute)
        case .elements:
            throw refusedExpression(expression, attribute, underlying: nil)
        case .value(let value, let kind):
            let target = SQLValueKind.attribute(attribute).valueClass
            guard kind.valueClass == target, target != .object else {
                throw CoreDataError.validation(
                    NSManagedObjectValidationError,
                    "Unacceptable type of value for attribute: entity \(entity.name ?? "?"), property \(attribute.name), desired type \(attribute.attributeType.xcodeName), given the expression \(PredicateFormatter.format(expression)).",
                    object: nil, key: attribute.name)
            }
            return converted(value, kind, to: attribute)
        }
    }

    /// A computed number in the form the attribute's column keeps: integers whole, Booleans 0 or 1
    /// (any other number is true, as when a number is set on a Boolean attribute).
    private func converted(_ value: SQLFragment, _ kind: SQLValueKind, to attribute: NSAttributeDescription) -> SQLFragment {
        var sourceType: NSAttributeType?
        if case .attribute(let source) = kind { sourceType = source.attributeType }
        switch attribute.attributeType {
        case .booleanAttributeType where sourceType != .booleanAttributeType:
            return dialect.truthValue(value)
        case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
            let integral: Set<NSAttributeType> = [.integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType]
            return sourceType.map(integral.contains) == true ? value : dialect.wholeNumber(value)
        default:
            return value
        }
    }

    /// A constant converted as `setValue(_:forKey:)` converts it, bound in its stored form.
    private func bound(_ value: Any?, for attribute: NSAttributeDescription) throws -> SQLFragment {
        let slot = SlotValue(attributeValue: value, for: attribute)
        if case .invalid(let box) = slot {
            throw CoreDataError.validation(
                NSManagedObjectValidationError,
                "Unacceptable type of value for attribute: entity \(entity.name ?? "?"), property \(attribute.name), desired type \(attribute.attributeType.xcodeName), given value \(box.value) of type \(type(of: box.value)).",
                object: nil, key: attribute.name, value: box.value)
        }
        return "\(bind: slot.sqlValue(for: attribute, marksExternalData: dialect.marksExternalBinaryData))"
    }

    private func refusedExpression(_ expression: NSExpression, _ attribute: NSAttributeDescription, underlying: NSError?) -> NSError {
        var info: [String: Any] = ["entity": entity.name ?? "", "key": attribute.name]
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return CoreDataError.make(
            NSPersistentStoreUnsupportedRequestTypeError,
            "The \(dialect.words.storeName) store can't set \(attribute.name) of entity \(entity.name ?? "?") to \(PredicateFormatter.format(expression)) in a batch update: values are constants, the row's own attributes, + - * and / by a constant over them, and TERNARY.",
            userInfo: info)
    }
}

extension SlotValue {
    /// The value as a relational store's column keeps it (docs/sqlite-format.md): dates as seconds
    /// since 2001, Booleans as 0 or 1, URLs as text, a transformable value in its archive.
    ///
    /// - Parameters:
    ///   - attribute: The attribute whose column receives it; nil for a to-one's key.
    ///   - marksExternalData: Whether binary data that may be stored externally starts with the
    ///     byte 1 that marks it inline, as Apple's SQLite store writes it.
    /// - Returns: The bound value; `.null` for what no column holds.
    package func sqlValue(for attribute: NSAttributeDescription?, marksExternalData: Bool) -> SQLValue {
        switch self {
        case .null, .unloaded, .toMany, .toOne, .invalid, .objectID, .objectIDs: return .null
        case .int(let v): return .integer(v)
        case .bool(let v): return .integer(v ? 1 : 0)
        case .double(let v): return .real(v)
        case .date(let v): return .real(v.timeIntervalSinceReferenceDate)
        case .decimal(let v): return .decimal(v)
        case .string(let v): return .text(v)
        case .url(let v): return .text(v.absoluteString)
        case .uuid(let v): return .uuid(v)
        case .data(let v): return .blob(marksExternalData && attribute?.allowsExternalBinaryDataStorage == true ? Data([1]) + v : v)
        case .object(let box):
            let data = box.value as? Data ?? ValueTransformerRegistry.encode(box.value, attribute: attribute)
            return data.map { .blob($0) } ?? .null
        case .reference(let reference): return .integer(reference.primaryKey)
        }
    }
}
