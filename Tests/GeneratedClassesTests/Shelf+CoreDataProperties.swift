//
//  Shelf+CoreDataProperties.swift
//

import Foundation
import OpenCoreData

extension Shelf {

    @nonobjc public class func fetchRequest() -> NSFetchRequest<Shelf> {
        return NSFetchRequest<Shelf>(entityName: "Shelf")
    }

    @NSManaged public var label: String?
    @NSManaged public var notes: NSSet?

}

// MARK: Generated accessors for notes
extension Shelf {

    #if canImport(ObjectiveC)
    @objc(addNotesObject:)
    #endif
    @NSManaged public func addToNotes(_ value: Note)

    #if canImport(ObjectiveC)
    @objc(removeNotesObject:)
    #endif
    @NSManaged public func removeFromNotes(_ value: Note)

    #if canImport(ObjectiveC)
    @objc(addNotes:)
    #endif
    @NSManaged public func addToNotes(_ values: NSSet)

    #if canImport(ObjectiveC)
    @objc(removeNotes:)
    #endif
    @NSManaged public func removeFromNotes(_ values: NSSet)

}

extension Shelf : Identifiable {

}
