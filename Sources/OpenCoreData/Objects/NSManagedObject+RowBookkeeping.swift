/// What an object keeps of its row besides its values: its primary key, its store, the version
/// (`Z_OPT`) its committed values came with, the committed values, the batch a
/// `fetchBatchSize` fault fills with, and its ID once made. Only objects that were changed,
/// asked for a temporary ID or batched need all of it; a fetched or saved object needs its key,
/// store and version, and its committed values are its values until it is written to.
///
/// So the object keeps one word, `rowBookkeeping`:
/// - bit 0 set: the key (bits 24–63), version (bits 8–23) and store, by its number among its
///   context token's stores (bits 2–7, 0 for none: `ContextToken.storeNumber(of:)`), are in the
///   word itself;
/// - bit 0 clear: the word is 0 (key and version 0) or the address of a retained
///   `RowBookkeepingRecord` holding everything (addresses are 16-byte aligned: bits 0–3 are free);
/// - bit 1, in both forms: the committed values are `slotValues` itself. Writing through `slots`
///   first moves them to the record, so committed values never change with a write.
final class RowBookkeepingRecord {
    var primaryKey: Int64
    var version: Int64
    /// Not retained, as `NSManagedObject.storeReference` says.
    var storeReference: Unmanaged<NSPersistentStore>?
    var committed: SlotRow?
    var fetchBatch: FetchBatch?
    var knownID: NSManagedObjectID?

    init(primaryKey: Int64, version: Int64, storeReference: Unmanaged<NSPersistentStore>?) {
        self.primaryKey = primaryKey
        self.version = version
        self.storeReference = storeReference
    }
}

extension NSManagedObject {
    private static var inlineTag: UInt64 { 1 }
    private static var committedIsValues: UInt64 { 2 }
    private static var addressMask: UInt64 { ~0xF }
    private static var storeShift: UInt64 { 2 }
    private static var storeMask: UInt64 { 0x3F << 2 }
    private static var versionShift: UInt64 { 8 }
    private static var keyShift: UInt64 { 24 }
    private static var versionLimit: Int64 { 1 << 16 }
    private static var keyLimit: Int64 { 1 << 40 }

    /// The record's address, when the object has one: the word without its tags, unless it is
    /// the inline form.
    private var recordAddress: UnsafeRawPointer? {
        let bits = rowBookkeeping
        return bits & Self.inlineTag == 0 ? UnsafeRawPointer(bitPattern: UInt(bits & Self.addressMask)) : nil
    }

    /// The record, when the object has one.
    private var bookkeepingRecord: RowBookkeepingRecord? {
        recordAddress.map { Unmanaged<RowBookkeepingRecord>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Whether the object has a record, read from the word alone (`bookkeepingRecord` makes a
    /// reference, which a comparison with nil retains and releases).
    private var hasBookkeepingRecord: Bool { recordAddress != nil }

    /// The record, made from what the word holds if the object has none yet.
    private func makeBookkeepingRecord() -> RowBookkeepingRecord {
        if let record = bookkeepingRecord { return record }
        let record = RowBookkeepingRecord(primaryKey: primaryKey, version: version, storeReference: storeReference)
        let address = UInt64(UInt(bitPattern: Unmanaged.passRetained(record).toOpaque()))
        // The word's low four bits are its tags: Swift objects are 16-byte aligned on the
        // 64-bit platforms the package supports.
        precondition(address & ~Self.addressMask == 0, "A bookkeeping record is not 16-byte aligned")
        rowBookkeeping = address | (rowBookkeeping & Self.committedIsValues)
        return record
    }

    /// Lets go of the record; only `deinit` calls it.
    func releaseBookkeepingRecord() {
        if let address = recordAddress { Unmanaged<RowBookkeepingRecord>.fromOpaque(address).release() }
    }

    /// The permanent identity's key, 0 while the object has none.
    var primaryKey: Int64 {
        get {
            let bits = rowBookkeeping
            if bits & Self.inlineTag != 0 { return Int64(bitPattern: bits >> Self.keyShift) }
            return bookkeepingRecord?.primaryKey ?? 0
        }
        set { setRowKey(newValue, version: version, storeBits: rowBookkeeping & Self.storeMask) }
    }

    /// The store and key of the object's row, read without making the object's ID: nil while it
    /// has no row, and for an object out of any context (its `objectID` names its row then). The
    /// store is not retained, as in `storeReference`: use it while the object's context lives.
    package var savedRow: (store: Unmanaged<NSPersistentStore>, primaryKey: Int64)? {
        let key = primaryKey
        guard key != 0, contextToken != nil, let store = storeReference else { return nil }
        return (store, key)
    }

    /// `Z_OPT` of the row the committed values came from.
    var version: Int64 {
        get {
            let bits = rowBookkeeping
            if bits & Self.inlineTag != 0 { return Int64(bitPattern: (bits >> Self.versionShift) & 0xFFFF) }
            return bookkeepingRecord?.version ?? 0
        }
        set { setRowKey(primaryKey, version: newValue, storeBits: rowBookkeeping & Self.storeMask) }
    }

    /// The store of the object's row. Not retained (a retain per fetched object would cost two
    /// atomic operations on one shared count): while the object's context lives, its coordinator
    /// keeps every store it ever held, removed ones too. Read through `store` only while the
    /// context lives; after, `objectID` finds the store's identity by this address in what the
    /// context left its token, without reading the store.
    var storeReference: Unmanaged<NSPersistentStore>? {
        let bits = rowBookkeeping
        if bits & Self.inlineTag != 0 {
            let number = Int((bits & Self.storeMask) >> Self.storeShift)
            return number == 0 ? nil : contextToken.unsafelyUnwrapped.numberedStore(number)
        }
        return bookkeepingRecord?.storeReference
    }

    /// Gives the object its row's store, key and version.
    ///
    /// - Parameters:
    ///   - store: The store of the row; numbered among the stores of the object's context token
    ///     when it has one (an object without keeps it in its record).
    ///   - primaryKey: The row's key.
    ///   - version: The row's `Z_OPT` the object's committed values have.
    func setRow(store: NSPersistentStore, primaryKey: Int64, version: Int64) {
        setRow(storeReference: .passUnretained(store), primaryKey: primaryKey, version: version)
    }

    /// `setRow(store:primaryKey:version:)` with the store unretained, as the object keeps it: a
    /// fetch registering a million rows of one store passed it retained, and read the token
    /// retained, two retains and releases per row (perf, fetch-all).
    ///
    /// - Parameters:
    ///   - reference: The store of the row; the caller keeps it alive.
    ///   - primaryKey: The row's key.
    ///   - version: The row's `Z_OPT` the object's committed values have.
    func setRow(storeReference reference: Unmanaged<NSPersistentStore>, primaryKey: Int64, version: Int64) {
        if !hasBookkeepingRecord, let token = contextToken.map(Unmanaged.passUnretained) {
            let number = token._withUnsafeGuaranteedRef { $0.storeNumber(of: reference) }
            if number != 0 {
                setRowKey(primaryKey, version: version, storeBits: UInt64(number) << Self.storeShift)
                return
            }
        }
        let record = makeBookkeepingRecord()
        record.storeReference = reference
        record.primaryKey = primaryKey
        record.version = version
    }

    /// Moves a store kept by number into the record, before the object changes context token.
    func moveStoreToRecord() {
        if rowBookkeeping & Self.inlineTag != 0, rowBookkeeping & Self.storeMask != 0 { _ = makeBookkeepingRecord() }
    }

    private func setRowKey(_ key: Int64, version: Int64, storeBits: UInt64) {
        if let record = bookkeepingRecord {
            record.primaryKey = key
            record.version = version
        } else if key >= 0, key < Self.keyLimit, version >= 0, version < Self.versionLimit {
            rowBookkeeping = UInt64(key) << Self.keyShift | UInt64(version) << Self.versionShift | storeBits
                | (rowBookkeeping & Self.committedIsValues) | Self.inlineTag
        } else {
            // The record takes the store from the word as it is; the store `storeBits` names
            // (the same or another) replaces it. Read from `storeBits`, not from the word: the
            // word holds the record's address once it is made.
            let record = makeBookkeepingRecord()
            if storeBits != 0 {
                record.storeReference = contextToken.unsafelyUnwrapped.numberedStore(Int(storeBits >> Self.storeShift))
            }
            record.primaryKey = key
            record.version = version
        }
    }

    /// The object's values, one slot per property of the entity (`NSPropertyDescription.slot`).
    /// Writing them first gives the committed values, when they are these, a place of their own.
    var slots: SlotRow {
        get { slotValues }
        set {
            keepCommittedApart()
            slotValues = newValue
        }
        _modify {
            keepCommittedApart()
            yield &slotValues
        }
    }

    @inline(__always)
    private func keepCommittedApart() {
        if rowBookkeeping & Self.committedIsValues != 0 { moveCommittedToRecord() }
    }

    @inline(never)
    private func moveCommittedToRecord() {
        let record = makeBookkeepingRecord()
        rowBookkeeping &= ~Self.committedIsValues
        record.committed = slotValues
    }

    /// The values as last read from or saved to the parent store; nil for a never-saved object.
    var committed: SlotRow? {
        get { rowBookkeeping & Self.committedIsValues != 0 ? slotValues : bookkeepingRecord?.committed }
        set {
            if let newValue, newValue.isSameRow(as: slotValues) {
                bookkeepingRecord?.committed = nil
                rowBookkeeping |= Self.committedIsValues
            } else {
                rowBookkeeping &= ~Self.committedIsValues
                if newValue != nil {
                    makeBookkeepingRecord().committed = newValue
                } else {
                    bookkeepingRecord?.committed = nil
                }
            }
        }
    }

    /// Makes `values` both the object's values and its committed values, as a row read from the
    /// store gives them (the row moves in without a copy).
    ///
    /// - Parameter values: The row's values.
    func takeCommittedValues(_ values: consuming SlotRow) {
        commitValuesInPlace()
        slotValues = values
    }

    /// Makes the object's values its committed values too, as they are: a fault's cached row
    /// becoming what it holds and what its store has. Neither row is copied nor retained.
    func commitValuesInPlace() {
        if let address = recordAddress {
            Unmanaged<RowBookkeepingRecord>.fromOpaque(address)._withUnsafeGuaranteedRef { $0.committed = nil }
        }
        rowBookkeeping |= Self.committedIsValues
    }

    /// Sets a field only the record holds: a value makes the record, nil needs none.
    private func setRecordField<Value>(_ field: ReferenceWritableKeyPath<RowBookkeepingRecord, Value?>, to value: Value?) {
        if value != nil {
            makeBookkeepingRecord()[keyPath: field] = value
        } else {
            bookkeepingRecord?[keyPath: field] = nil
        }
    }

    /// For a fault returned by a fetch with `fetchBatchSize`: the batch filled with it.
    var fetchBatch: FetchBatch? {
        get { bookkeepingRecord?.fetchBatch }
        set { setRecordField(\.fetchBatch, to: newValue) }
    }

    /// The temporary ID while the object has no primary key (shared with parent and child
    /// contexts until the root context saves); once it has one, its permanent ID, when kept.
    var knownID: NSManagedObjectID? {
        get { bookkeepingRecord?.knownID }
        set { setRecordField(\.knownID, to: newValue) }
    }

    /// Keeps `id`, the object's permanent ID, when the object has a record to keep it in.
    func rememberPermanentID(_ id: NSManagedObjectID) {
        bookkeepingRecord?.knownID = id
    }

    /// Drops a permanent ID made before the object's key changed.
    func forgetPermanentID() {
        if let record = bookkeepingRecord, record.knownID?.isTemporaryID == false { record.knownID = nil }
    }

    /// Makes the object's ID now and keeps it, for an object about to leave its context: after
    /// that, its store may be gone.
    func keepObjectID() {
        let id = objectID
        makeBookkeepingRecord().knownID = id
    }
}
