import Foundation
import OpenSwiftData

/// The tutorials' item as a SwiftData model: the same three properties as the generated
/// `TSPItem` (an entity of its own name, so both live in one program).
@Model final class SDItem {
    var name: String?
    var createdAt: Date?
    var done = false

    init(name: String, createdAt: Date, done: Bool) {
        self.name = name
        self.createdAt = createdAt
        self.done = done
    }
}

/// The simple `User` of the public RealmVsSwiftData benchmark: a name and an age.
@Model final class User {
    var name: String
    var age: Int

    init(name: String, age: Int) {
        self.name = name
        self.age = age
    }
}
