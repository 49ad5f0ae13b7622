/// Lets `NSPredicate(format:…)` build a predicate on Linux, where Foundation's format initializers
/// are unavailable. A protocol-extension initializer can return a subclass, so the result is a
/// `Foundation.NSPredicate` in every type position, in files importing `Foundation` too.
/// Not API: conformed to by Foundation's class only.
public protocol _FormatPredicateInitializable {}

extension Foundation.NSPredicate: _FormatPredicateInitializable {}

extension _FormatPredicateInitializable {
    /// A predicate parsed from `predicateFormat`, with `args` substituted for `%@`, `%K`, `%d`…
    /// in order.
    ///
    /// ```swift
    /// let p = NSPredicate(format: "done == NO AND count > %d", 3)
    /// ```
    ///
    /// Stops the program with the parse error (position and what was expected) when the string is
    /// malformed, as Apple raises; use `init(validatingFormat:argumentArray:)` to get an error.
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate in Apple's format syntax.
    ///   - args: The values for the format's `%@`, `%K`, `%d`… placeholders, in order.
    public init(format predicateFormat: String, _ args: any CVarArg...) {
        self.init(format: predicateFormat, argumentArray: args.map { $0 as Any })
    }

    /// The same, for arguments Linux does not make `CVarArg`: `Date`, `UUID`, `Data`, arrays and
    /// sets, managed objects and object IDs, and `nil`.
    ///
    /// ```swift
    /// let p = NSPredicate(format: "createdAt > %@ AND owner == %@", startDate, owner)
    /// ```
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate in Apple's format syntax.
    ///   - args: The values for the format's placeholders, in order; `nil` is passed as `NSNull`.
    @_disfavoredOverload
    public init(format predicateFormat: String, _ args: Any?...) {
        self.init(format: predicateFormat, argumentArray: args.map { $0 ?? NSNull() })
    }

    /// A predicate parsed from `predicateFormat` with the values of `arguments` (use `NSNull` for
    /// nil) substituted in order. Stops the program on a malformed string, as Apple raises.
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate in Apple's format syntax.
    ///   - arguments: The values for the format's placeholders, in order, or `nil` when it has none.
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
        do {
            try self.init(validatingFormat: predicateFormat, argumentArray: arguments)
        } catch {
            preconditionFailure((error as NSError).localizedDescription)
        }
    }

    /// A predicate parsed from `predicateFormat`, or an error instead of Apple's exception.
    ///
    /// - Parameters:
    ///   - predicateFormat: The predicate in Apple's format syntax.
    ///   - arguments: The values for the format's placeholders, in order (`NSNull` for nil), or
    ///     `nil` when it has none.
    /// - Throws: an `NSError` in `NSCocoaErrorDomain` with code `NSFormattingError`, whose
    ///   description names the offset and what was expected there; `userInfo` carries the offset
    ///   under `PredicateFormatErrorOffsetKey`.
    public init(validatingFormat predicateFormat: String, argumentArray arguments: [Any]? = nil) throws {
        let predicate: Foundation.NSPredicate
        do {
            predicate = try PredicateParser.parsePredicate(predicateFormat, arguments: arguments ?? [])
        } catch let error as PredicateParseError {
            throw error.nsError(format: predicateFormat)
        }
        guard let typed = predicate as? Self else {
            throw PredicateParseError(message: "the format makes a \(type(of: predicate)), not a \(Self.self)", offset: 0)
                .nsError(format: predicateFormat)
        }
        self = typed
    }
}

extension Foundation.NSPredicate {
    /// The predicate in Apple's format syntax, which parses back to an equal predicate:
    /// comparison and compound predicates print their canonical form, `NSPredicate(value:)`
    /// prints TRUEPREDICATE / FALSEPREDICATE, block predicates BLOCKPREDICATE.
    ///
    /// Shadows Foundation's deprecated property where only `OpenCoreData` is imported. In a file
    /// that also imports `Foundation`, Foundation's wins (this one is disfavored so that the call
    /// is not ambiguous) and prints BLOCKPREDICATE for OpenCoreData's predicates; `description`
    /// prints the canonical form everywhere.
    @_disfavoredOverload
    public var predicateFormat: String { PredicateFormatter.format(self) }

    /// A copy of the predicate with each `$variable` replaced by its value in `variables`.
    ///
    /// ```swift
    /// let template = NSPredicate(format: "count > $minimum")
    /// let p = template.withSubstitutionVariables(["minimum": 3])
    /// ```
    ///
    /// - Parameter variables: Values by variable name, without the `$`. A value that is an
    ///   `NSExpression` is put in as it is; others become constants. Variables missing from the
    ///   dictionary stay in the copy.
    /// - Returns: A new predicate of the same kind; the receiver is unchanged.
    public func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
        PredicateSubstitution.substitute(self, variables) as! Self
    }
}

extension NSExpression {
    /// An expression parsed from `expressionFormat`, with `args` substituted in order. Stops the
    /// program on a malformed string, as Apple raises.
    ///
    /// - Parameters:
    ///   - expressionFormat: The expression in Apple's format syntax, such as `"price * 2"`.
    ///   - args: The values for the format's placeholders, in order.
    public convenience init(format expressionFormat: String, _ args: any CVarArg...) {
        self.init(format: expressionFormat, argumentArray: args.map { $0 as Any })
    }

    /// An expression parsed from `expressionFormat` with `arguments` substituted in order.
    /// Stops the program with the parse error on a malformed string.
    ///
    /// - Parameters:
    ///   - expressionFormat: The expression in Apple's format syntax.
    ///   - arguments: The values for the format's placeholders, in order (`NSNull` for nil).
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
        do {
            let expression = try PredicateParser.parseExpression(expressionFormat, arguments: arguments)
            self.init(storage: expression.storage)
        } catch {
            let message = (error as? PredicateParseError)?.nsError(format: expressionFormat).localizedDescription ?? "\(error)"
            preconditionFailure(message)
        }
    }
}

/// Replaces `$variables` in predicate trees, building new predicates (they are immutable).
enum PredicateSubstitution {
    static func substitute(_ predicate: Foundation.NSPredicate, _ variables: [String: Any]) -> Foundation.NSPredicate {
        switch predicate {
        case let comparison as NSComparisonPredicate:
            return NSComparisonPredicate(
                leftExpression: comparison.leftExpression.substituting(variables),
                rightExpression: comparison.rightExpression.substituting(variables),
                modifier: comparison.comparisonPredicateModifier, type: comparison.predicateOperatorType,
                options: comparison.options)
        case let compound as NSCompoundPredicate:
            return CompoundPredicate(
                type: compound.compoundPredicateType,
                subpredicates: compound.subpredicates.map { substitute($0, variables) })
        default:
            return predicate
        }
    }
}
