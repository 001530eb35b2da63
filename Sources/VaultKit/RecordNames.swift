public import Journal
import VaultStore

/// Names records for a person, by their short ids (``ShortID``), for one command's output.
///
/// The first ids are each worked out by counting in the indexes (a few microseconds each);
/// a listing that goes on past ``lookupsBeforeIndex`` reads every random part once instead
/// (about 30 ms for 142,000 records), so naming 100,000 notes costs one scan rather than
/// 100,000 queries. An id that cannot be named shortly (another record shares its whole
/// random part, or it could not be read) is shown in full.
public final class RecordNames {
    static let lookupsBeforeIndex = 5_000

    private let store: Store
    private var lookups = 0
    private var index: RandomPartIndex?
    private var known: [EntityID: String] = [:]

    init(store: Store) {
        self.store = store
    }

    /// Works out the short ids of `ids` at once, ahead of a listing that has them all.
    public func prepare(_ ids: [EntityID]) {
        guard index == nil, ids.count > 1 else { return }
        if let found = try? store.read({ tables throws(StoreError) in try tables.records.sixDigitShortIDs(of: ids) }) { known.merge(found) { first, _ in first } }
    }

    /// The form of `id` to show.
    public func shortID(_ id: EntityID) -> String {
        if let short = known[id] { return short }
        lookups += 1
        if index == nil, lookups > Self.lookupsBeforeIndex {
            index = try? store.read { tables throws(StoreError) in try tables.records.randomPartIndex() }
        }
        let short = index.map { $0.shortID(of: id) } ?? (try? store.read { tables throws(StoreError) in try tables.records.shortID(of: id) })
        return (short ?? nil) ?? id.rawValue
    }
}
