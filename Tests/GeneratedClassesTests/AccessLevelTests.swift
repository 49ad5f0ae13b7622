import Foundation
import Testing

import OpenCoreData

/// `@NSManaged` properties whose setter is less public than their getter build, in debug and in
/// release, and read and write their values (AccessLevelClasses.swift).
@Suite struct AccessLevelTests {
    @Test func everyAccessLevelReadsAndWritesItsValue() throws {
        let (_, context, url) = try GeneratedClassesTests().container()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let uid = UUID()
        try context.performAndWait {
            let ledger = Ledger(context: context)
            ledger.fill(uid: uid, title: "Accounts", count: 3, note: "n", flagged: true, memo: "m")
            OpenLedger(context: context).fill(uid: uid, title: "Open")
            InternalLedger(context: context).fill(uid: uid, title: "Internal")
            try context.save()
            context.reset()
            let fetched = try #require(try context.fetch(NSFetchRequest<Ledger>(entityName: "Ledger")).first)
            #expect(fetched.uid == uid && fetched.title == "Accounts" && fetched.count == 3)
            #expect(fetched.noteText == "n" && fetched.isFlagged && fetched.memo == "m")
            #expect(try context.fetch(NSFetchRequest<OpenLedger>(entityName: "OpenLedger")).first?.uid == uid)
            #expect(try context.fetch(NSFetchRequest<InternalLedger>(entityName: "InternalLedger")).first?.title == "Internal")
        }
    }
}
