//
//  Note+CoreDataClass.swift
//

import Foundation
import OpenCoreData

public class Note: NSManagedObject {

}
