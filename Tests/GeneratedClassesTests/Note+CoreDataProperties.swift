//
//  Note+CoreDataProperties.swift
//

import Foundation
import OpenCoreData

extension Note {

    @nonobjc public class func fetchRequest() -> NSFetchRequest<Note> {
        return NSFetchRequest<Note>(entityName: "Note")
    }

    @NSManaged public var text: String?
    @NSManaged public var shelf: Shelf?
    @NSManaged public var store: Store?

}

extension Note : Identifiable {

}
