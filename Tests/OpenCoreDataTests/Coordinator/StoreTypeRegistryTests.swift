import Foundation
import Testing

@testable import OpenCoreData

/// Store types as `registeredStoreTypes` lists them and `registerStoreClass` adds them.
@Suite struct StoreTypeRegistryTests {
    @Test func registeredStoreTypesListsTheBuiltInTypesWithTheirClasses() throws {
        let types = NSPersistentStoreCoordinator.registeredStoreTypes
        let sqlite = try #require(types[NSSQLiteStoreType])
        var address: UInt64 = 0
        sqlite.getValue(&address)
        #expect(address == UInt64(UInt(bitPattern: ObjectIdentifier(SQLiteStore.self))))
        #expect(types[NSInMemoryStoreType] != nil)
        #expect(types[NSBinaryStoreType] == nil)
    }

    @Test func registerStoreClassForStoreTypeAddsAndForgetsAType() throws {
        let name = "Registered-\(UUID().uuidString)"
        NSPersistentStoreCoordinator.registerStoreClass(InMemoryStore.self, forStoreType: name)
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[name] != nil)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo())
        let store = try coordinator.addPersistentStore(ofType: name, configurationName: nil, at: nil)
        #expect(store is InMemoryStore)
        NSPersistentStoreCoordinator.registerStoreClass(nil, forStoreType: name)
        #expect(NSPersistentStoreCoordinator.registeredStoreTypes[name] == nil)
        let error = try #require(throws: NSError.self) {
            try NSPersistentStoreCoordinator(managedObjectModel: TestModels.todo()).addPersistentStore(ofType: name, configurationName: nil, at: nil)
        }
        #expect(error.code == NSPersistentStoreInvalidTypeError)
    }
}
