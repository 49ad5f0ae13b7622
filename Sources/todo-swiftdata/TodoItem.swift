import Foundation

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// One to-do: the tutorials' item, as a SwiftData model.
@Model final class TodoItem {
    var title: String
    var done = false
    var priority: Int = 0
    var createdAt: Date
    var note: String?

    init(title: String, priority: Int = 0, createdAt: Date = Date()) {
        self.title = title
        self.priority = priority
        self.createdAt = createdAt
    }
}
