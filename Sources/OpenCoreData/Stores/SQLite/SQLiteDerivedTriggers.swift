/// The triggers Core Data's SQLite store keeps a derived attribute up to date with
/// (`NSDerivedAttributeDescription`), named and written as Apple writes them, so that a store
/// moves between platforms with its derivations (docs/sqlite-format.md §3: `Z_DA_<TABLE>_<Entity>_<attribute>…`),
/// and the statement that fills the column for the rows already there.
struct SQLiteDerivedTriggers {
    /// Trigger names with their `CREATE TRIGGER IF NOT EXISTS` statements, in Core Data's order.
    let triggers: [(name: String, sql: String)]
    /// Computes the column for every existing row: run when the triggers are first created.
    let backfill: String

    /// Core Data's callbacks: the value a trigger computed, for the context's objects.
    static let insertedValue = "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"
    static let updatedValue = "NSCoreDataDATriggerUpdatedAffectedObjectValue"

    /// - Parameters:
    ///   - attribute: The derived attribute, declared by `entity`.
    ///   - form: Its expression's form.
    ///   - storeNumber: The store's `Z_ENT` of an entity.
    /// - Throws: `NSCoreDataError` for a form whose Core Data triggers could not run.
    init(_ attribute: NSDerivedAttributeDescription, of entity: NSEntityDescription, form: DerivationForm, storeNumber: (NSEntityDescription) -> Int32) throws {
        let (s, c, name, declaring) = (entity.tableName, attribute.columnName ?? "", attribute.name, entity.name ?? "")
        // An entity below a root shares its table: its rows are told apart by Z_ENT, from its
        // own number to the last of its subentities'.
        var newCondition: String?
        var plainCondition: String?
        var range: String?
        if entity.superentity != nil {
            let low = storeNumber(entity)
            let high = ([entity] + ModelLayoutBuilder.descendants(of: entity)).map(storeNumber).max() ?? low
            newCondition = low < high ? "\(low) <= NEW.Z_ENT AND NEW.Z_ENT <= \(high)" : "\(low) = NEW.Z_ENT"
            plainCondition = low < high ? "\(low) <= Z_ENT AND Z_ENT <= \(high)" : "\(low) = Z_ENT"
            range = "WHERE \(low) <= Z_ENT AND Z_ENT <= \(high)"
        }
        let andNew = newCondition.map { " AND \($0)" } ?? ""
        let whenNew = newCondition.map { " WHEN \($0)" } ?? ""
        let andPlain = plainCondition.map { " AND \($0)" } ?? ""
        func report(_ function: String, where condition: String) -> String {
            "SELECT \(function)('\(s)', Z_ENT, Z_PK, '\(name)', \(c)) FROM \(s) WHERE \(condition);"
        }
        func trigger(_ name: String, _ head: String, _ statements: [String]) -> (String, String) {
            (name, "CREATE TRIGGER IF NOT EXISTS \(name) \(head) BEGIN \(statements.joined(separator: " ")) END")
        }
        switch form {
        case .toOne(let relationship, let leaf, let function):
            let (d, fk, v) = (relationship.destinationEntity!.tableName, relationship.columnName ?? "", leaf.columnName ?? "")
            let fresh = function.map { "\($0.sqlName)(NEW.\(v))" } ?? "NEW.\(v)"
            let plain = function.map { "\($0.sqlName)(\(v))" } ?? v
            let source = "Z_DA_\(s)_\(declaring)_\(name)_SOURCE"
            let parameter = "Z_DA_\(d)_\(declaring)_\(name)_PARAMETER"
            let copy = "UPDATE \(s) SET \(c) = (SELECT \(plain) FROM \(d) WHERE Z_PK = NEW.\(fk)) WHERE Z_PK = NEW.Z_PK"
            triggers = [
                trigger(source + "_INSERT", "AFTER INSERT ON \(s) FOR EACH ROW", [copy + andNew + ";", report(Self.insertedValue, where: "Z_PK = NEW.Z_PK" + andNew)]),
                trigger(source + "_UPDATE", "AFTER UPDATE OF \(fk) ON \(s) FOR EACH ROW" + whenNew, [copy + ";", report(Self.updatedValue, where: "Z_PK = NEW.Z_PK")]),
                trigger(
                    parameter + "_INSERT", "AFTER INSERT ON \(d) FOR EACH ROW",
                    ["UPDATE \(s) SET \(c) = \(fresh) WHERE \(fk) = NEW.Z_PK\(andPlain);", report(Self.insertedValue, where: "\(fk) = NEW.Z_PK" + andPlain)]),
                trigger(
                    parameter + "_UPDATE", "AFTER UPDATE OF \(v) ON \(d) FOR EACH ROW",
                    ["UPDATE \(s) SET \(c) = \(fresh) WHERE \(fk) = NEW.Z_PK\(andPlain);", report(Self.updatedValue, where: "\(fk) = NEW.Z_PK" + andPlain)]),
            ]
            backfill = "UPDATE \(s) SET \(c) = (SELECT \(plain) FROM \(d) WHERE Z_PK = \(s).\(fk))"

        case .ownAttribute, .now:
            let columns: String
            let fresh: String
            let plain: String
            if case .ownAttribute(let own, let function) = form {
                let a = own.columnName ?? ""
                (columns, fresh, plain) = (a, function.map { "\($0.sqlName)(NEW.\(a))" } ?? "NEW.\(a)", function.map { "\($0.sqlName)(\(a))" } ?? a)
            } else {
                (columns, fresh, plain) = ("Z_OPT", "NSCoreDataNow()", "NSCoreDataNow()")
            }
            let base = "Z_DA_\(s)_\(declaring)_\(name)"
            let set = "UPDATE \(s) SET \(c) = \(fresh) WHERE Z_PK = NEW.Z_PK;"
            triggers = [
                trigger(base + "_INSERT", "AFTER INSERT ON \(s) FOR EACH ROW WHEN (NEW.\(columns) NOT NULL)", [set, report(Self.insertedValue, where: "Z_PK = NEW.Z_PK")]),
                trigger(base + "_UPDATE", "AFTER UPDATE OF \(columns) ON \(s) FOR EACH ROW", [set, report(Self.updatedValue, where: "Z_PK = NEW.Z_PK")]),
            ]
            // Core Data writes the space before the (possibly empty) range either way.
            backfill = "UPDATE \(s) SET \(c) = \(plain) \(range ?? "")"

        case .toMany(let relationship, let aggregate, let leaf):
            let d = relationship.destinationEntity!.tableName
            if let inverse = relationship.inverseRelationship, !inverse.isToMany, let fk = inverse.columnName {
                if aggregate == .min || aggregate == .max {
                    (triggers, backfill) = try Self.extremum(
                        aggregate, entity: entity, attribute: attribute, relationship: relationship, foreignKey: fk, leaf: leaf!,
                        storeNumber: storeNumber, andSource: andPlain, whenSource: whenNew, report: report)
                    return
                }
                let v = leaf?.columnName ?? ""
                let (increment, decrement, columns, total) =
                    leaf == nil ? ("+ 1", "- 1", fk, "COUNT(\(fk))") : ("+ IFNULL(NEW.\(v), 0)", "- IFNULL(OLD.\(v), 0)", "\(fk), \(v)", "SUM(\(v))")
                let parameter = "Z_DA_\(d)_\(declaring)_\(name)_PARAMETER"
                let source = "Z_DA_\(s)_\(declaring)_\(name)_SOURCE"
                func change(_ row: String, _ value: String) -> [String] {
                    ["UPDATE \(s) SET \(c) = \(value) WHERE Z_PK = \(row).\(fk)\(andPlain);", report(Self.updatedValue, where: "Z_PK = \(row).\(fk)" + andPlain)]
                }
                triggers = [
                    trigger(parameter + "_INSERT", "AFTER INSERT ON \(d) FOR EACH ROW WHEN (NEW.\(fk) NOT NULL)", change("NEW", "IFNULL(\(c), 0) \(increment)")),
                    trigger(parameter + "_UPDATE_INCREMENT", "AFTER UPDATE OF \(columns) ON \(d) FOR EACH ROW WHEN (NEW.\(fk) NOT NULL)", change("NEW", "\(c) \(increment)")),
                    trigger(parameter + "_UPDATE_DECREMENT", "AFTER UPDATE OF \(columns) ON \(d) FOR EACH ROW WHEN (OLD.\(fk) NOT NULL)", change("OLD", "\(c) \(decrement)")),
                    trigger(parameter + "_DELETE", "AFTER DELETE ON \(d) FOR EACH ROW WHEN (OLD.\(fk) NOT NULL)", change("OLD", "\(c) \(decrement)")),
                    trigger(
                        source + "_INSERT", "AFTER INSERT ON \(s) FOR EACH ROW" + whenNew,
                        ["UPDATE \(s) SET \(c) = (SELECT IFNULL(\(total), 0) FROM \(d) WHERE \(fk) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;", report(Self.insertedValue, where: "Z_PK = NEW.Z_PK")]),
                ]
                backfill = "UPDATE \(s) SET \(c) = (SELECT IFNULL(\(total), 0) FROM \(d) WHERE \(fk) = \(s).Z_PK)\(plainCondition.map { " WHERE \($0)" } ?? "");"
            } else if let join = relationship.joinTable {
                let (j, jc) = (join.name, join.sourceColumn)
                let parameter = "Z_DA_\(j)_\(declaring)_\(name)_PARAMETER"
                let source = "Z_DA_\(s)_\(declaring)_\(name)_SOURCE"
                triggers = [
                    trigger(
                        parameter + "_INSERT", "AFTER INSERT ON \(j) FOR EACH ROW",
                        ["UPDATE \(s) SET \(c) = IFNULL(\(c), 0) + 1 WHERE Z_PK = NEW.\(jc)\(andPlain);", report(Self.updatedValue, where: "Z_PK = NEW.\(jc)" + andPlain)]),
                    trigger(
                        parameter + "_DELETE", "AFTER DELETE ON \(j) FOR EACH ROW",
                        ["UPDATE \(s) SET \(c) = \(c) - 1 WHERE Z_PK = OLD.\(jc)\(andPlain);", report(Self.updatedValue, where: "Z_PK = OLD.\(jc)" + andPlain)]),
                    trigger(
                        source + "_INSERT", "AFTER INSERT ON \(s) FOR EACH ROW" + whenNew,
                        ["UPDATE \(s) SET \(c) = (SELECT IFNULL(COUNT(\(jc)), 0) FROM \(j) WHERE \(jc) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;", report(Self.updatedValue, where: "Z_PK = NEW.Z_PK")]),
                ]
                backfill = "UPDATE \(s) SET \(c) = (SELECT IFNULL(COUNT(\(jc)), 0) FROM \(j) WHERE \(jc) = \(s).Z_PK)\(plainCondition.map { " WHERE \($0)" } ?? "");"
            } else {
                throw CoreDataError.make(NSCoreDataError, "The derived attribute \(declaring).\(name) aggregates a relationship without a column to count on.")
            }
        }
    }

    /// `@min` and `@max` of a to-many's attribute: Core Data's triggers, named without a
    /// SOURCE/PARAMETER part, set the new extreme directly and recompute it when the extreme
    /// leaves.
    private static func extremum(
        _ aggregate: DerivationForm.Aggregate, entity: NSEntityDescription, attribute: NSDerivedAttributeDescription,
        relationship: NSRelationshipDescription, foreignKey fk: String, leaf: NSAttributeDescription,
        storeNumber: (NSEntityDescription) -> Int32, andSource: String, whenSource: String, report: (String, String) -> String
    ) throws -> ([(name: String, sql: String)], String) {
        let destination = relationship.destinationEntity!
        // Core Data filters these triggers' WHEN by the destination's Z_ENT, which SQLite can't
        // read there: its triggers for a destination below a root fail on every write.
        guard destination.superentity == nil else {
            throw CoreDataError.make(
                NSCoreDataError,
                "The model is not supported: derived attribute '\(entity.name ?? "?").\(attribute.name)' takes @\(aggregate.rawValue) over \(destination.name ?? "?"), a subentity; Core Data's triggers for it cannot run.")
        }
        let (s, c, name, declaring) = (entity.tableName, attribute.columnName ?? "", attribute.name, entity.name ?? "")
        let (d, v) = (destination.tableName, leaf.columnName ?? "")
        let (function, op) = aggregate == .min ? ("MIN", "<") : ("MAX", ">")
        let p = "Z_DA_\(d)_\(declaring)_\(name)"
        let q = "Z_DA_\(s)_\(declaring)_\(name)"
        func create(_ name: String, _ head: String, _ body: [String]) -> (name: String, sql: String) {
            (name, "CREATE TRIGGER IF NOT EXISTS \(name) \(head) BEGIN \(body.joined(separator: " ")) END")
        }
        let recompute = [
            "UPDATE \(s) SET \(c) = (SELECT \(function)(\(v)) FROM \(d) WHERE \(fk) = OLD.\(fk)) WHERE Z_PK = OLD.\(fk)\(andSource) AND OLD.\(v) \(op)= \(c);",
        ]
        let unset = recompute + [report(updatedValue, "Z_PK = OLD.\(fk)\(andSource) AND (\(c) IS NULL OR OLD.\(v) \(op)= \(c))")]
        let setNew = "UPDATE \(s) SET \(c) = NEW.\(v) WHERE Z_PK = NEW.\(fk)\(andSource) AND (\(c) IS NULL OR NEW.\(v) \(op) \(c));"
        let triggers = [
            create(
                p + "_INSERT", "AFTER INSERT ON \(d) FOR EACH ROW WHEN (NEW.\(fk) NOT NULL AND NEW.\(v) NOT NULL)",
                [setNew, report(updatedValue, "Z_PK = NEW.\(fk)\(andSource) AND (\(c) IS NULL OR NEW.\(v) \(op)= \(c))")]),
            create(
                p + "_UPDATE_SET", "AFTER UPDATE OF \(fk), \(v) ON \(d) FOR EACH ROW WHEN (NEW.\(fk) NOT NULL AND NEW.\(v) NOT NULL)",
                recompute + [report(updatedValue, "Z_PK = OLD.\(fk)\(andSource) AND OLD.\(v) \(op)= \(c)"), setNew,
                    report(updatedValue, "Z_PK = NEW.\(fk)\(andSource) AND NEW.\(v) \(op)= \(c)")]),
            create(
                p + "_UPDATE_UNSET",
                "AFTER UPDATE OF \(fk), \(v) ON \(d) FOR EACH ROW WHEN (OLD.\(fk) NOT NULL AND OLD.\(v) NOT NULL AND (NEW.\(fk) IS NULL OR NEW.\(v) IS NULL))",
                unset),
            create(p + "_DELETE", "AFTER DELETE ON \(d) FOR EACH ROW WHEN (OLD.\(fk) NOT NULL AND OLD.\(v) NOT NULL)", unset),
            create(
                q + "_INSERT", "AFTER INSERT ON \(s) FOR EACH ROW" + whenSource,
                ["UPDATE \(s) SET \(c) = (SELECT \(function)(\(v)) FROM \(d) WHERE \(fk) = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK;", report(insertedValue, "Z_PK = NEW.Z_PK")]),
        ]
        return (triggers, "UPDATE \(s) SET \(c) = (SELECT \(function)(\(v)) FROM \(d) WHERE \(fk) = \(s).Z_PK);")
    }
}
