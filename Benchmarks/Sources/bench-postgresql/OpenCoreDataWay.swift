import BenchmarkSupport
import Foundation
import OpenCoreData
import OpenCoreDataPostgreSQL

/// OpenCoreData as a server's request handler uses it: a container on the PostgreSQL store, a
/// background context, KVC as the tutorials write it, the context reset once the request is done.
final class OpenCoreDataWay: PostgreSQLWay {
    static let name = "OpenCoreData"

    private let container: NSPersistentContainer
    private let context: NSManagedObjectContext
    private let data: DataSet

    private init(container: NSPersistentContainer, data: DataSet) {
        self.container = container
        self.context = container.newBackgroundContext()
        self.data = data
    }

    static func open(server: ServerAddress, schema: String, data: DataSet) async throws -> OpenCoreDataWay {
        OpenCoreDataWay(container: try container(url: server.storeURL(schema: schema)), data: data)
    }

    /// A container on the store at `url`.
    static func container(url: URL, options: [String: NSObject] = [:]) throws -> NSPersistentContainer {
        let container = NSPersistentContainer(name: "Bench", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        description.type = NSPostgreSQLStoreType
        for (key, value) in options { description.setOption(value, forKey: key) }
        container.persistentStoreDescriptions = [description]
        var failure: (any Error)?
        container.loadPersistentStores { _, error in failure = error }
        if let failure { throw failure }
        return container
    }

    /// One model for the process: a coordinator's entities must be the ones its objects were made with.
    static let model = TSPItemModel.make()

    func close() async throws {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    func run(_ benchCase: PostgreSQLCase) async throws -> Int {
        let context = self.context
        let data = self.data
        return try context.performAndWait {
            defer { context.reset() }
            switch benchCase {
            case .insert:
                data.insertItems(into: context)
                try context.save()
                return data.count
            case .fetchAll, .fetchSorted, .predicateDate:
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.returnsObjectsAsFaults = false
                if benchCase == .fetchSorted { request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)] }
                if benchCase == .predicateDate { request.predicate = Self.openItemsAfter }
                return try context.fetch(request).count
            case .count:
                let request = NSFetchRequest<NSManagedObject>(entityName: "TSPItem")
                request.predicate = Self.openItemsAfter
                return try context.count(for: request)
            case .batchUpdate:
                let request = NSBatchUpdateRequest.checkAllItems()
                request.resultType = .updatedObjectsCountResultType
                return (try context.execute(request) as! NSBatchUpdateResult).result as! Int
            case .batchDelete:
                return (try context.execute(NSBatchDeleteRequest.clearDoneItems()) as! NSBatchDeleteResult).result as! Int
            }
        }
    }

    private static var openItemsAfter: NSPredicate {
        NSPredicate(format: "done == NO AND createdAt > %@", DataSet.predicateDate as NSDate)
    }
}
