import Foundation
import Logging
import Testing
@testable import OpenCoreData

/// `-com.apple.CoreData.SQLDebug`: what a user debugging a save or a fetch reads in the log.
@Suite struct SQLDebugTests {
    /// A coordinator at `level` whose log lands in `messages`, with one store in `directory`.
    private func stack(level: Int, directory: TemporaryDirectory) throws -> (NSManagedObjectContext, CapturedLog) {
        let log = CapturedLog()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        coordinator.sqlDebugLevel = level
        coordinator.logger = Logger(label: "test.sql") { _ in log.handler }
        try coordinator.addPersistentStore(type: .sqlite, at: directory.file("Todo.sqlite"))
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return (context, log)
    }

    private func saveAndFetch(_ context: NSManagedObjectContext, _ log: CapturedLog) throws -> (save: [String], fetch: [String]) {
        try context.performAndWait {
            for name in ["milk", "eggs"] {
                let item = NSEntityDescription.insertNewObject(forEntityName: "TSPItem", into: context)
                item.setValue(name, forKey: "name")
            }
            log.clear()
            try context.save()
            let save = log.messages
            log.clear()
            let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
            request.predicate = NSPredicate(format: "name == %@", "milk")
            #expect(try context.fetch(request).count == 1)
            return (save, log.messages)
        }
    }

    @Test func level1LogsEveryStatementOfASaveAndAFetchWithTimeAndRows() throws {
        let directory = TemporaryDirectory()
        let (context, log) = try stack(level: 1, directory: directory)
        let (save, fetch) = try saveAndFetch(context, log)

        let inserts = save.filter { $0.hasPrefix("sql: INSERT INTO ZTSPITEM") }
        #expect(!inserts.isEmpty, "\(save)")
        // Each statement with its time and the rows it changed: the two items together.
        let changed = inserts.compactMap { Self.count(in: $0, unit: "changed") }
        #expect(changed.reduce(0, +) == 2, "\(inserts)")
        #expect(save.contains { $0.hasPrefix("sql: UPDATE Z_PRIMARYKEY") || $0.hasPrefix("sql: UPDATE OR") }, "\(save)")
        #expect(save.contains { $0.hasPrefix("sql: COMMIT") })

        let select = try #require(fetch.first { $0.hasPrefix("sql: SELECT") && $0.contains("ZTSPITEM") }, "\(fetch)")
        #expect(Self.count(in: select, unit: "rows") == 1, "\(select)")
        #expect(select.range(of: #"— \d+\.\d{4}s, "#, options: .regularExpression) != nil, "\(select)")
        // Level 1 shows neither values nor plans.
        #expect(!fetch.contains { $0.hasPrefix("sql bound:") || $0.hasPrefix("sql plan:") })
    }

    @Test func level3AddsTheBoundValues() throws {
        let directory = TemporaryDirectory()
        let (context, log) = try stack(level: 3, directory: directory)
        let (save, fetch) = try saveAndFetch(context, log)
        #expect(save.contains { $0.hasPrefix("sql bound: INSERT INTO ZTSPITEM") && $0.contains("'eggs'") }, "\(save)")
        #expect(fetch.contains { $0.hasPrefix("sql bound: SELECT") && $0.contains("'milk'") }, "\(fetch)")
        #expect(!fetch.contains { $0.hasPrefix("sql plan:") })
    }

    @Test func level4AddsTheQueryPlanOfEverySelect() throws {
        let directory = TemporaryDirectory()
        let (context, log) = try stack(level: 4, directory: directory)
        let (_, fetch) = try saveAndFetch(context, log)
        let plan = try #require(fetch.first { $0.hasPrefix("sql plan:") }, "\(fetch)")
        #expect(plan.contains("ZTSPITEM"), "\(plan)")
        // The plan comes before the statement it explains, and the statement still ran.
        let planIndex = try #require(fetch.firstIndex(of: plan))
        #expect(fetch[planIndex...].contains { $0.hasPrefix("sql: SELECT") && Self.count(in: $0, unit: "rows") == 1 })
    }

    @Test func level0LogsNothing() throws {
        let directory = TemporaryDirectory()
        let (context, log) = try stack(level: 0, directory: directory)
        let (save, fetch) = try saveAndFetch(context, log)
        #expect(save.isEmpty && fetch.isEmpty)
    }

    @Test func theLaunchArgumentWinsOverTheEnvironment() {
        #expect(SQLDebug.level(arguments: ["app"], environment: [:]) == 0)
        #expect(SQLDebug.level(arguments: ["app", "-com.apple.CoreData.SQLDebug", "3"], environment: [:]) == 3)
        #expect(SQLDebug.level(arguments: ["app"], environment: ["OPENCOREDATA_SQL_DEBUG": "4"]) == 4)
        #expect(SQLDebug.level(arguments: ["app", "-com.apple.CoreData.SQLDebug", "1"], environment: ["OPENCOREDATA_SQL_DEBUG": "4"]) == 1)
        #expect(SQLDebug.level(arguments: ["app", "-com.apple.CoreData.SQLDebug"], environment: [:]) == 0)
        #expect(SQLDebug.level(arguments: ["app", "-com.apple.CoreData.SQLDebug", "yes"], environment: [:]) == 0)
        #expect(SQLDebug.level(arguments: ["app"], environment: ["OPENCOREDATA_SQL_DEBUG": "-2"]) == 0)
    }

    @Test func aProgramCanTakeCoreDataLaunchArgumentsOutBeforeParsingItsOwn() {
        let arguments = ["todo", "-com.apple.CoreData.SQLDebug", "1", "list", "-com.apple.CoreData.ConcurrencyDebug", "1", "--done"]
        #expect(SQLDebug.removingLaunchArguments(from: arguments) == ["todo", "list", "--done"])
    }

    /// The number before `unit` at the end of a statement's line ("… — 0.0001s, 2 changed").
    private static func count(in line: String, unit: String) -> Int? {
        guard let range = line.range(of: #"(\d+) "# + unit + "$", options: .regularExpression) else { return nil }
        return Int(line[range].split(separator: " ")[0])
    }
}

/// An in-memory swift-log handler: the messages a test's logger received, in order.
final class CapturedLog: Sendable {
    private let storage = Locked<[String]>([])

    var messages: [String] { storage.withLock { $0 } }
    func clear() { storage.withLock { $0.removeAll() } }

    var handler: Handler { Handler(log: self) }

    struct Handler: LogHandler {
        let log: CapturedLog
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.storage.withLock { $0.append(event.message.description) }
        }
    }
}
