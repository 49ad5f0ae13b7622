import Foundation
import OpenCoreData

/// Derived attributes on PostgreSQL (`NSDerivedAttributeDescription`): what Core Data's SQLite
/// triggers do, as PL/pgSQL triggers. Each recomputes the derived value of the rows a change
/// affects (rather than counting up and down, as Apple's do), and, inside a save, reports the new
/// values in the session's `z_derivedlog` so that the saving context's objects get them.
struct PostgreSQLDerivedTriggers {
    /// A trigger function and the trigger that runs it, by the trigger's name.
    let statements: [(name: String, sql: [String])]
    /// Computes the column for every existing row: run when the triggers are first created.
    let backfill: String

    /// The temporary table a save's triggers report to; each session has its own, emptied at commit.
    static let createLog =
        "CREATE TEMP TABLE IF NOT EXISTS z_derivedlog (zseq bigserial, zent int8, zpk int8, zname text, zvalue text) ON COMMIT DELETE ROWS"

    /// - Parameters:
    ///   - attribute: The derived attribute, declared by `entity`.
    ///   - form: Its expression's form.
    ///   - caseCollation: A collation whose case mapping covers Unicode (ICU's `und-x-icu`); nil
    ///     when the server has none, where `upper` and `lower` change ASCII letters only in the
    ///     C locale.
    init(_ attribute: NSDerivedAttributeDescription, of entity: NSEntityDescription, form: DerivationForm, caseCollation: String?) {
        func apply(_ function: DerivationForm.StringFunction?, to value: String) -> String {
            Self.apply(function, to: value, collation: caseCollation)
        }
        let (s, c, name) = (entity.tableName, attribute.columnName ?? "", attribute.name)
        let base = "z_da_\(s)_\(entity.name ?? "")_\(name)".lowercased()
        // A subentity's rows share the root's table: its own and its subentities' numbers.
        let numbers = entity.layout!.hierarchyNumbers
        let hierarchy = entity.superentity == nil ? "" : " AND Z_ENT BETWEEN \(numbers.first!) AND \(numbers.last!)"
        let value: String
        switch form {
        case .ownAttribute(let own, let function):
            value = apply(function, to: own.columnName ?? "NULL")
        case .toOne(let relationship, let leaf, let function):
            value = "(SELECT \(apply(function, to: "d.\(leaf.columnName ?? "")")) FROM \(relationship.destinationEntity!.tableName) d WHERE d.Z_PK = \(s).\(relationship.columnName ?? ""))"
        case .toMany(let relationship, let aggregate, let leaf):
            if let inverse = relationship.inverseRelationship, !inverse.isToMany, let fk = inverse.columnName {
                let v = "d.\(leaf?.columnName ?? "")"
                let total = switch aggregate {
                case .count: leaf == nil ? "COUNT(*)" : "COALESCE(SUM(\(v)), 0)"
                case .sum: "COALESCE(SUM(\(v)), 0)"
                case .min: "MIN(\(v))"
                case .max: "MAX(\(v))"
                }
                value = "(SELECT \(total) FROM \(relationship.destinationEntity!.tableName) d WHERE d.\(fk) = \(s).Z_PK)"
            } else {
                let join = relationship.joinTable!
                value = "(SELECT COUNT(*) FROM \(join.name) j WHERE j.\(join.sourceColumn) = \(s).Z_PK)"
            }
        case .now:
            // Core Data's dates: seconds since 2001-01-01 UTC.
            value = "(extract(epoch FROM clock_timestamp()) - 978307200)"
        }
        func recompute(where condition: String) -> String {
            """
            IF to_regclass('pg_temp.z_derivedlog') IS NULL THEN
                UPDATE \(s) SET \(c) = \(value) WHERE \(condition)\(hierarchy);
            ELSE
                WITH changed AS (UPDATE \(s) SET \(c) = \(value) WHERE \(condition)\(hierarchy) RETURNING Z_ENT, Z_PK, \(c))
                INSERT INTO pg_temp.z_derivedlog (zent, zpk, zname, zvalue) SELECT Z_ENT, Z_PK, '\(name)', \(c)::text FROM changed;
            END IF;
            """
        }
        func trigger(_ name: String, _ event: String, on table: String, _ body: String) -> (String, [String]) {
            (name, [
                "CREATE OR REPLACE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $body$ BEGIN \(body) RETURN NULL; END $body$",
                "CREATE OR REPLACE TRIGGER \(name) AFTER \(event) ON \(table) FOR EACH ROW EXECUTE FUNCTION \(name)()",
            ])
        }
        var statements: [(String, [String])] = []
        // The row itself: when it is inserted, and when what it derives from changes in it.
        let ownColumns: String? = switch form {
        case .ownAttribute(let own, _): own.columnName
        case .toOne(let relationship, _, _): relationship.columnName
        case .now: "Z_OPT"
        case .toMany: nil
        }
        statements.append(trigger(base + "_source", "INSERT" + (ownColumns.map { " OR UPDATE OF \($0)" } ?? ""), on: s, recompute(where: "Z_PK = NEW.Z_PK")))
        // The rows it derives from, in other tables.
        switch form {
        case .toOne(let relationship, let leaf, _):
            statements.append(trigger(
                base + "_parameter", "INSERT OR UPDATE OF \(leaf.columnName ?? "")", on: relationship.destinationEntity!.tableName,
                recompute(where: "\(relationship.columnName ?? "") = NEW.Z_PK")))
        case .toMany(let relationship, _, let leaf):
            if let inverse = relationship.inverseRelationship, !inverse.isToMany, let fk = inverse.columnName {
                let columns = [fk, leaf?.columnName].compactMap { $0 }.joined(separator: ", ")
                statements.append(trigger(
                    base + "_parameter", "INSERT OR UPDATE OF \(columns) OR DELETE", on: relationship.destinationEntity!.tableName,
                    """
                    IF TG_OP <> 'INSERT' THEN \(recompute(where: "Z_PK = OLD.\(fk)")) END IF;
                    IF TG_OP <> 'DELETE' THEN \(recompute(where: "Z_PK = NEW.\(fk)")) END IF;
                    """))
            } else if let join = relationship.joinTable {
                statements.append(trigger(
                    base + "_parameter", "INSERT OR DELETE", on: join.name,
                    """
                    IF TG_OP = 'DELETE' THEN \(recompute(where: "Z_PK = OLD.\(join.sourceColumn)")) END IF;
                    IF TG_OP = 'INSERT' THEN \(recompute(where: "Z_PK = NEW.\(join.sourceColumn)")) END IF;
                    """))
            }
        case .ownAttribute, .now:
            break
        }
        self.statements = statements
        backfill = "UPDATE \(s) SET \(c) = \(value)\(hierarchy.isEmpty ? "" : " WHERE" + hierarchy.dropFirst(4))"
    }

    /// Core Data's string functions in PostgreSQL's terms; `canonical:` folds case and removes
    /// combining marks after decomposing, as `[cd]` compares.
    private static func apply(_ function: DerivationForm.StringFunction?, to value: String, collation: String?) -> String {
        let collate = collation.map { " COLLATE \"\($0)\"" } ?? ""
        return switch function {
        case nil: value
        case .uppercase: "upper(\(value)\(collate))"
        case .lowercase: "lower(\(value)\(collate))"
        case .canonical: "lower(regexp_replace(normalize(\(value), NFD), U&'[\\0300-\\036F]', '', 'g')\(collate))"
        }
    }
}

extension PostgreSQLStore {
    /// Creates the triggers of the model's derived attributes that the schema lacks, and fills
    /// each attribute's column for the rows already there; under a lock, so that two
    /// coordinators opening the store at once create them once.
    func installDerivedTriggers(entities: [NSEntityDescription], on session: any PostgreSQLSession) throws {
        let icu = try !session.run("SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'", []).rows.isEmpty
        var wanted: [PostgreSQLDerivedTriggers] = []
        for entity in entities {
            for case let derived as NSDerivedAttributeDescription in entity.declaredProperties where derived.columnName != nil {
                wanted.append(PostgreSQLDerivedTriggers(derived, of: entity, form: try DerivationForm(derived, entity: entity), caseCollation: icu ? "und-x-icu" : nil))
            }
        }
        guard !wanted.isEmpty else { return }
        _ = try session.run("SELECT pg_advisory_xact_lock(hashtext('opencoredata.derived.' || current_schema()))", [])
        let present = Set(try session.run(
            "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()",
            []).rows.compactMap { row -> String? in if case .text(let name) = row.first { return name } else { return nil } })
        for attribute in wanted where !attribute.statements.allSatisfy({ present.contains(String($0.name.utf8.prefix(63))!) }) {
            for (_, statements) in attribute.statements {
                for sql in statements { _ = try session.run(sql, []) }
            }
            _ = try session.run(attribute.backfill, [])
        }
    }

    /// The derived values the save's triggers reported, as the model's entities and slots.
    func derivedValues(on session: any PostgreSQLSession) throws -> [DerivedValue] {
        let rows = try session.run("SELECT zent, zpk, zname, zvalue FROM pg_temp.z_derivedlog ORDER BY zseq", []).rows
        var values: [DerivedValue] = []
        for row in rows {
            guard row.count == 4, let number = PostgreSQLValues.integer(row[0]), let key = PostgreSQLValues.integer(row[1]),
                case .text(let name) = row[2], let entity = entity(number: Int32(truncatingIfNeeded: number)),
                let attribute = entity.propertiesByName[name] as? NSAttributeDescription
            else { continue }
            var value = SlotValue.null
            if case .text(let text) = row[3] {
                let raw: Any? = switch attribute.attributeType {
                case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType:
                    Int64(text) ?? Double(text).flatMap { Int64(exactly: $0.rounded(.towardZero)) }
                case .doubleAttributeType, .floatAttributeType: Double(text)
                case .decimalAttributeType: Decimal(string: text)
                case .dateAttributeType: Double(text).map { Date(timeIntervalSinceReferenceDate: $0) }
                default: text
                }
                value = SlotValue(attributeValue: raw, for: attribute)
                if case .invalid = value { value = .null }
            }
            values.append(DerivedValue(entityNumber: Int32(truncatingIfNeeded: number), primaryKey: key, slot: attribute.slot, value: value))
        }
        return DerivedValue.latest(values)
    }
}
