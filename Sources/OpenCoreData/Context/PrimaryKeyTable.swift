/// Objects by primary key in pages of 256, allocated as keys reach them and found by page number.
/// Consecutive keys share a page, so a fetch in key order finds a page once per 256 objects (the
/// last page is remembered).
///
/// Pages of keys below 2^24 (Core Data's keys count up from 1 per hierarchy, so nearly all) are
/// found by indexing a directory of page addresses, the others through a dictionary: an object
/// deinitializing in an order unrelated to its key (a sorted fetch let go of) finds its slot with
/// one load, without hashing or touching a reference count. The directory is as long as the
/// largest such key's page number (at most 512 KB); a context holding a few objects with keys
/// beyond 2^24 costs a few pages, not an index as long as its largest key.
///
/// A slot holds an object's address without retaining it (`ObjectRegistry`). A registry's table is
/// used under the registry's lock; an asynchronous fetch's staging table by its operation alone,
/// which holds the staged objects.
final class PrimaryKeyTable {
    typealias Slot = UnsafeMutablePointer<Unmanaged<NSManagedObject>?>

    private static let pageBits: Int64 = 8
    private static let pageSize = 1 << pageBits
    /// Page numbers below this are in `directory`: up to 512 KB of page addresses.
    private static let directoryLimit: Int64 = 1 << 16

    // A page is fixed storage, never resized or freed while the table owns it, so a pointer to
    // its slots stays valid. Unchecked exclusivity: see the type's comment on who uses a table.
    /// The pages of numbers below `directoryLimit`, by number; grown as keys reach them.
    @exclusivity(unchecked) private var directory: [Slot?] = []
    /// The pages of larger numbers.
    @exclusivity(unchecked) private var distantPages: [Int64: Slot] = [:]
    /// The slots of the page `slot(for:)` used last.
    @exclusivity(unchecked) private var lastNumber: Int64 = -1
    @exclusivity(unchecked) private var lastSlots: Slot?

    deinit {
        for page in pages { page.slots.deallocate() }
    }

    /// Every page the table owns, with its number.
    private var pages: [(number: Int64, slots: Slot)] {
        directory.indices.compactMap { number in directory[number].map { (Int64(number), $0) } }
            + distantPages.map { (number: $0.key, slots: $0.value) }
    }

    private static func makePage() -> Slot {
        let page = Slot.allocate(capacity: pageSize)
        page.initialize(repeating: nil, count: pageSize)
        return page
    }

    /// The page of `number`, if it exists.
    @inline(__always)
    private func existingPage(_ number: Int64) -> Slot? {
        if number < Self.directoryLimit {
            return number < directory.count ? directory[Int(number)] : nil
        }
        return distantPages[number]
    }

    /// Makes `page` the table's page `number` (which it has none of), taking ownership of it.
    private func setPage(_ number: Int64, _ page: Slot) {
        if number < Self.directoryLimit {
            if number >= directory.count {
                directory += repeatElement(nil, count: Int(number) + 1 - directory.count)
            }
            directory[Int(number)] = page
        } else {
            distantPages[number] = page
        }
    }

    /// Gives up ownership of page `number` (the caller takes it).
    private func removePage(_ number: Int64) {
        if number < Self.directoryLimit { directory[Int(number)] = nil } else { distantPages[number] = nil }
        if number == lastNumber { lastSlots = nil }
    }

    /// The page of `number`, created if needed.
    @inline(__always)
    private func pageCreating(_ number: Int64) -> Slot {
        if let page = existingPage(number) { return page }
        let page = Self.makePage()
        setPage(number, page)
        return page
    }

    /// The object in `slot`, retained; nil when the slot is empty or its object is deinitializing.
    @inline(__always)
    static func object(in slot: Slot) -> NSManagedObject? {
        slot.pointee?.retainedUnlessDeinitializing()
    }

    /// The slot of `primaryKey` (positive), its page created if needed; valid while the table lives.
    @inline(__always)
    func slot(for primaryKey: Int64) -> Slot {
        let number = primaryKey >> Self.pageBits
        if number != lastNumber || lastSlots == nil {
            lastSlots = pageCreating(number)
            lastNumber = number
        }
        return lastSlots.unsafelyUnwrapped + Int(primaryKey & Int64(Self.pageSize - 1))
    }

    /// The slot of `primaryKey` if its page exists; valid while the table lives.
    @inline(__always)
    func existingSlot(for primaryKey: Int64) -> Slot? {
        let number = primaryKey >> Self.pageBits
        if number != lastNumber || lastSlots == nil {
            guard let page = existingPage(number) else { return nil }
            lastSlots = page
            lastNumber = number
        }
        return lastSlots.unsafelyUnwrapped + Int(primaryKey & Int64(Self.pageSize - 1))
    }

    /// The object of `primaryKey`, retained, if one is there and not deinitializing.
    subscript(primaryKey: Int64) -> NSManagedObject? {
        existingSlot(for: primaryKey).flatMap(Self.object(in:))
    }

    /// The numbers of the pages in use.
    var pageNumbers: [Int64] { pages.map(\.number) }

    /// Moves the objects of `other`'s page `number` here: the page itself when this table has
    /// none of that number (nothing is copied, and no object is touched), else slot by slot. An
    /// object whose slot here is taken by a live object stays in `other`, and its key goes to
    /// `taken`. `other` must not be used afterwards but to be dropped.
    ///
    /// - Returns: The objects moved, as addresses (the caller holds them), and how many of them
    ///   took an empty slot (the others replaced an object on its way out, which was counted).
    /// - Complexity: O(256).
    ///
    /// - Parameter token: When given, only objects of that token move, slot by slot: objects
    ///   staged before the context was reset belong to the context as it was.
    func adoptPage(
        _ number: Int64, from other: PrimaryKeyTable, taken: inout [Int64], onlyOf token: ContextToken? = nil
    ) -> (moved: [Unmanaged<NSManagedObject>], added: Int) {
        guard let page = other.existingPage(number) else { return ([], 0) }
        let mine: Slot
        if let existing = self.existingPage(number) {
            mine = existing
        } else if token == nil {
            // The whole page moves: nothing is copied, and no object is touched.
            other.removePage(number)
            setPage(number, page)
            let moved = (0..<Self.pageSize).compactMap { page[$0] }
            return (moved, moved.count)
        } else {
            mine = pageCreating(number)
        }
        var moved: [Unmanaged<NSManagedObject>] = []
        var added = 0
        for slot in 0..<Self.pageSize {
            guard let staged = page[slot] else { continue }
            // The caller holds its staged objects: reading one is safe.
            if let token, staged.takeUnretainedValue().contextToken !== token { continue }
            let target = mine + slot
            if Self.object(in: target) != nil {
                taken.append(number << Self.pageBits | Int64(slot))
                continue
            }
            if target.pointee == nil { added += 1 }
            target.pointee = staged
            page[slot] = nil
            moved.append(staged)
        }
        return (moved, added)
    }

    /// Appends every object here that is not deinitializing, retained.
    func appendObjects(to result: inout [NSManagedObject]) {
        for page in pages.lazy.map(\.slots) {
            for slot in 0..<Self.pageSize {
                if let object = Self.object(in: page + slot) { result.append(object) }
            }
        }
    }
}
