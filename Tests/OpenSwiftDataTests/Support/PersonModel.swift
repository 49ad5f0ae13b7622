import Foundation

#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

/// iOS 18's `#Unique` and `#Index` in a model.
@Model final class Person {
    #Unique<Person>([\.givenName, \.familyName])
    #Index<Person>([\.familyName], [\.givenName, \.familyName])

    var givenName: String
    var familyName: String
    var age: Int = 0

    init(givenName: String, familyName: String, age: Int) {
        self.givenName = givenName
        self.familyName = familyName
        self.age = age
    }
}
