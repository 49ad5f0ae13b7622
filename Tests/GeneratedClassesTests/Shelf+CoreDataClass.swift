//
//  Shelf+CoreDataClass.swift
//

import Foundation
import OpenCoreData

public class Shelf: NSManagedObject {

}
