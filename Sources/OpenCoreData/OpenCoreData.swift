// Core Data code starts with `import CoreData`, which brings Foundation along; `import OpenCoreData`
// does the same so a ported file needs no second import.
@_exported import Foundation
