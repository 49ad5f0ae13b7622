import Foundation

// UIKit and AppKit give `IndexPath` its section/item/row accessors; code that drives a list from a
// fetched results controller uses them, so they exist wherever neither framework does. The two-index
// path is the one every list uses: index 0 the section, index 1 the item.

#if !canImport(UIKit) && !canImport(AppKit)
extension IndexPath {
    /// A path to an item of a section.
    ///
    /// - Parameters:
    ///   - item: The position of the item in its section.
    ///   - section: The position of the section.
    public init(item: Int, section: Int) { self.init(indexes: [section, item]) }

    /// The section: the path's first index.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The item in its section: the path's second index.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif

#if !canImport(UIKit)
extension IndexPath {
    /// A path to a row of a section, as a table view names it.
    ///
    /// - Parameters:
    ///   - row: The position of the row in its section.
    ///   - section: The position of the section.
    public init(row: Int, section: Int) { self.init(indexes: [section, row]) }

    /// The row in its section: the path's second index (the same as `item`).
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif
