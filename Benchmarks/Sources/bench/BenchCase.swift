import BenchmarkSupport

/// The cases of issue 4, in the order the table prints them.
enum BenchCase: String, CaseIterable, Sendable {
    case insert
    case typedInsert = "typed-insert"
    case fetchAll = "fetch-all"
    /// Issue 25: a request's fixed cost, where the rows cost next to nothing.
    case fetchTen = "fetch-10"
    case typedRead = "typed-read"
    case fetchAsync = "fetch-async"
    case fetchSorted = "fetch-sorted"
    case fetchFaults = "fetch-faults"
    case fetchIDs = "fetch-ids"
    case iterateBatched = "iterate-batched"
    case predicateDate = "predicate-date"
    case predicateName = "predicate-name"
    // Issue 25: the name predicates users write, and a count without a predicate.
    case predicateLike = "predicate-like"
    case predicateLikeCaseless = "predicate-like-c"
    case predicateContains = "predicate-contains-cd"
    case predicateMatches = "predicate-matches"
    case countPredicate = "count-predicate"
    case countAll = "count-all"
    /// Issue 43: a count right after the way itself wrote the data set (written before the
    /// timing starts), as a server counts what it just stored.
    case countAfterWrites = "count-after-writes"
    case update10k = "update-10k"
    case delete10k = "delete-10k"
    // Issue 6: batch requests, straight to the store.
    case batchUpdate = "batch-update"
    case batchUpdateIDs = "batch-update-ids"
    case batchInsert = "batch-insert"
    case batchDelete = "batch-delete"

    /// How many objects the update and delete cases change.
    static let changeCount = 10_000

    /// What the case does, as the table shows it.
    var title: String {
        switch self {
        case .insert: "insert N, save once"
        case .typedInsert: "insert N through TSPItem(context:) and typed properties, save once"
        case .fetchAll: "fetch all, materialized"
        case .fetchTen: "fetch 10 (fetchLimit), materialized"
        case .typedRead: "fetch all as TSPItem, read every property typed"
        case .fetchAsync: "NSAsynchronousFetchRequest, all, materialized"
        case .fetchSorted: "fetch all, materialized, by createdAt"
        case .fetchFaults: "fetch all as faults"
        case .fetchIDs: "fetch all as object IDs"
        case .iterateBatched: "iterate batchedFetch, fetchBatchSize 1000, read name"
        case .predicateDate: "fetch done == NO AND createdAt > %@"
        case .predicateName, .predicateLike, .predicateLikeCaseless, .predicateContains, .predicateMatches: "fetch \(namePredicate!)"
        case .countPredicate: "count(for:) done == NO AND createdAt > %@"
        case .countAll: "count(for:) every item"
        case .countAfterWrites: "count(for:) every item, right after inserting them"
        case .update10k: "change done on 10,000 + save"
        case .delete10k: "delete 10,000 + save"
        case .batchUpdate: "batch update: done = YES on all (Check All)"
        case .batchUpdateIDs: "batch update, updated IDs returned"
        case .batchInsert: "batch insert N"
        case .batchDelete: "batch delete done == YES"
        }
    }

    /// The target for OpenCoreData / raw SQLite: issue 43's where it sets one (the object
    /// layer's cases), else issue 25's (the whole life of a request, results released inside the
    /// timed part).
    var targetRatio: Double {
        switch self {
        // Issue 43.
        case .insert, .typedInsert: 1.5
        case .fetchAll, .typedRead: 1.4
        case .iterateBatched: 1.8
        case .predicateDate, .predicateLikeCaseless, .predicateContains: 1.4
        // Issue 25.
        case .fetchAsync: 2.0
        case .fetchSorted: 1.3
        // Its target is absolute (raw + 0.1 ms): the report says how far it is.
        case .fetchTen: 1.5
        case .fetchFaults, .fetchIDs, .predicateName: 1.5
        case .predicateLike, .predicateMatches: 1.5
        case .update10k, .delete10k: 3.0
        case .countPredicate, .countAll, .countAfterWrites, .batchUpdate, .batchDelete: 1.2
        case .batchUpdateIDs, .batchInsert: 1.5
        }
    }

    /// The predicate of a name case, as an app writes it; each selects the names beginning with
    /// "Item 1" (the data set's names are "Item <n>").
    var namePredicate: String? {
        switch self {
        case .predicateName: "name BEGINSWITH 'Item 1'"
        case .predicateLike: "name LIKE 'Item 1*'"
        case .predicateLikeCaseless: "name LIKE[c] 'item 1*'"
        case .predicateContains: "name CONTAINS[cd] 'TEM 1'"
        case .predicateMatches: "name MATCHES 'Item 1.*'"
        default: nil
        }
    }

    /// A name case's condition as a raw SQLite user writes it for the same rows: `GLOB` for a
    /// case-sensitive prefix, SQLite's ASCII case-insensitive `LIKE` otherwise (the names are ASCII).
    var rawNameCondition: String? {
        switch self {
        case .predicateName, .predicateLike, .predicateMatches: "ZNAME GLOB 'Item 1*'"
        case .predicateLikeCaseless: "ZNAME LIKE 'item 1%'"
        case .predicateContains: "ZNAME LIKE '%TEM 1%'"
        default: nil
        }
    }

    /// Whether the case reads rows into values (what GRDB's fastest reading style is measured on).
    var readsRows: Bool {
        switch self {
        case .fetchAll, .fetchTen, .fetchSorted, .typedRead, .predicateDate: true
        default: namePredicate != nil
        }
    }

    /// Whether the case starts from an empty store rather than one holding the data set.
    var startsEmpty: Bool { self == .insert || self == .typedInsert || self == .batchInsert || self == .countAfterWrites }

    /// How many rows or objects a correct run of the case returns or changes, for `rows` rows: the
    /// three ways must agree on it.
    func expectedCount(in data: DataSet) -> Int {
        switch self {
        case .insert, .typedInsert, .typedRead, .fetchAll, .fetchAsync, .fetchSorted, .fetchFaults, .fetchIDs, .iterateBatched: data.count
        case .batchUpdate, .batchUpdateIDs, .batchInsert: data.count
        case .batchDelete: data.done.count { $0 }
        case .predicateDate, .countPredicate:
            zip(data.done, data.dates).count { !$0.0 && $0.1 > DataSet.predicateDate }
        case .predicateName, .predicateLike, .predicateLikeCaseless, .predicateContains, .predicateMatches: data.names.count { $0.hasPrefix("Item 1") }
        case .countAll, .countAfterWrites: data.count
        case .fetchTen: min(10, data.count)
        case .update10k, .delete10k: min(Self.changeCount, data.count)
        }
    }
}
