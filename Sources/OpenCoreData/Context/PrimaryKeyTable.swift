/// Objects by primary key in pages of 256, allocated as keys reach them and found by page number.
/// Consecutive keys share a page, so a fetch in key order looks a page up once per 256 objects
/// (the last page is remembered); a context holding a few objects with large keys costs a few
/// pages, not an index as long as its largest key.
///
/// A slot holds an object's address without retaining it (`ObjectRegistry`). A registry's table is
/// used under the registry's lock; an asynchronous fetch's staging table by its operation alone,
/// which holds the staged objects.
final class PrimaryKeyTable {
    typealias Slot = UnsafeMutablePointer<Unmanaged<NSManagedObject>?>

    private static let pageBits: Int64 = 8
    private static let pageSize = 1 << pageBits

    /// One page: fixed storage, never resized or removed while the table lives, so a pointer to
    /// its slots stays valid.
    private final class Page {
        let objects: Slot

        init() {
            objects = .allocate(capacity: PrimaryKeyTable.pageSize)
            objects.initialize(repeating: nil, count: PrimaryKeyTable.pageSize)
        }

        deinit { objects.deallocate() }
    }

    @exclusivity(unchecked) private var pages = RememberingDictionary<Int64, Page>()
    /// The slots of the page `slot(for:)` used last.
    @exclusivity(unchecked) private var lastNumber: Int64 = -1
    @exclusivity(unchecked) private var lastSlots: Slot?

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
            lastSlots = pages.value(for: number, orInsert: Page()).objects
            lastNumber = number
        }
        return lastSlots.unsafelyUnwrapped + Int(primaryKey & Int64(Self.pageSize - 1))
    }

    /// The slot of `primaryKey` if its page exists; valid while the table lives.
    @inline(__always)
    func existingSlot(for primaryKey: Int64) -> Slot? {
        let number = primaryKey >> Self.pageBits
        if number != lastNumber || lastSlots == nil {
            guard let page = pages.value(for: number) else { return nil }
            lastSlots = page.objects
            lastNumber = number
        }
        return lastSlots.unsafelyUnwrapped + Int(primaryKey & Int64(Self.pageSize - 1))
    }

    /// The object of `primaryKey`, retained, if one is there and not deinitializing.
    subscript(primaryKey: Int64) -> NSManagedObject? {
        existingSlot(for: primaryKey).flatMap(Self.object(in:))
    }

    /// The numbers of the pages in use.
    var pageNumbers: [Int64] { Array(pages.keys) }

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
        guard let page = other.pages.value(for: number) else { return ([], 0) }
        guard let mine = pages.value(for: number) ?? (token == nil ? nil : pages.value(for: number, orInsert: Page())) else {
            _ = pages.value(for: number, orInsert: page)
            let moved = (0..<Self.pageSize).compactMap { page.objects[$0] }
            return (moved, moved.count)
        }
        var moved: [Unmanaged<NSManagedObject>] = []
        var added = 0
        for slot in 0..<Self.pageSize {
            guard let staged = page.objects[slot] else { continue }
            // The caller holds its staged objects: reading one is safe.
            if let token, staged.takeUnretainedValue().contextToken !== token { continue }
            let target = mine.objects + slot
            if Self.object(in: target) != nil {
                taken.append(number << Self.pageBits | Int64(slot))
                continue
            }
            if target.pointee == nil { added += 1 }
            target.pointee = staged
            page.objects[slot] = nil
            moved.append(staged)
        }
        return (moved, added)
    }

    /// Appends every object here that is not deinitializing, retained.
    func appendObjects(to result: inout [NSManagedObject]) {
        for page in pages.values {
            for slot in 0..<Self.pageSize {
                if let object = Self.object(in: page.objects + slot) { result.append(object) }
            }
        }
    }
}
