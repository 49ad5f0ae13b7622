/// Objects an objects-did-change notification listed, with the set it posted of them.
///
/// A save posts that notification first, then its did-save notification, usually with the same
/// objects: that one reuses the set. Building a set of a million objects and freeing it costs a
/// cache miss an element (a random bucket, then each object's reference count in bucket order),
/// a tenth of such a save.
struct PostedObjects {
    let objects: [NSManagedObject]
    let set: Set<NSManagedObject>

    /// `set`, when given, must hold exactly `objects` (one built meanwhile, `InsertedSetBuilder`).
    init(_ objects: [NSManagedObject], set: Set<NSManagedObject>? = nil) {
        self.objects = objects
        self.set = set ?? sparseSet(objects)
    }

    /// The set, if `others` are these objects in this order. The arrays' references are compared
    /// as bytes: reading the elements would retain and release each, touching every object.
    func set(for others: [NSManagedObject]) -> Set<NSManagedObject>? {
        guard objects.count == others.count else { return nil }
        let same = objects.withUnsafeBytes { mine in
            others.withUnsafeBytes { theirs in mine.count == 0 || memcmp(mine.baseAddress!, theirs.baseAddress!, mine.count) == 0 }
        }
        return same ? set : nil
    }

    /// Whether these objects, each once, are exactly the values of `map`.
    func covers(_ map: [ObjectIdentifier: NSManagedObject]) -> Bool {
        objects.count == set.count && set.count == map.count && objects.allSatisfy { map[ObjectIdentifier($0)] != nil }
    }
}

/// What the last objects-did-change notification listed, kept for the save that follows it.
struct PostedChanges {
    let inserted: PostedObjects
    let updated: PostedObjects
    let deleted: PostedObjects
}
