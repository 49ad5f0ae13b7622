import Foundation

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// Imports items on its own executor and context, so that several import at once.
@ModelActor actor TodoImporter {
    /// Inserts one item per number of `range`, titled `prefix` and the number, and saves.
    ///
    /// - Returns: How many items it inserted.
    func importItems(_ range: Range<Int>, prefix: String) throws -> Int {
        for number in range {
            modelContext.insert(TodoItem(title: "\(prefix) \(number)", priority: number % 3))
        }
        try modelContext.save()
        return range.count
    }
}
