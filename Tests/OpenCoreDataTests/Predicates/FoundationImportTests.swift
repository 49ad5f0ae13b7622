// Imports both modules, as a ported file does: `NSPredicate` and `NSSortDescriptor` must compile in
// type positions (they are Foundation's classes; OpenCoreData only extends them).
import Foundation
import OpenCoreData
import Testing

@Suite struct FoundationImportTests {
    @Test func predicateAndSortDescriptorInTypePositions() {
        let p: NSPredicate = NSPredicate(format: "name BEGINSWITH[c] %@ AND count > %d", "it", 2)
        var s: [NSSortDescriptor] = [NSSortDescriptor(key: "name", ascending: true)]
        s.append(NSSortDescriptor(key: "count", ascending: false))
        let optional: NSPredicate? = NSCompoundPredicate(notPredicateWithSubpredicate: p)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = p
        request.sortDescriptors = s
        #expect(p.evaluate(with: ["name": "Item", "count": 3]))
        #expect(optional?.evaluate(with: ["name": "Item", "count": 3]) == false)
        #expect(String(describing: p) == "name BEGINSWITH[c] \"it\" AND count > 2")
        #expect(request.sortDescriptors?.count == 2)
        let template: NSPredicate = NSPredicate(format: "count > $n").withSubstitutionVariables(["n": 1])
        #expect(template.evaluate(with: ["count": 2]))
    }
}
