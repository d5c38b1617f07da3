import Foundation
import Synchronization
import WebImage

/// What became of a background revalidation.
enum RevalidationOutcome: String, Sendable {
    /// A 304, or the same bytes again: the source's freshness was renewed.
    case unchanged
    /// Other bytes: the source has a new identity, and its old results are no longer served.
    case changed
    /// The origin answered 404: the source and its results were dropped.
    case gone
    /// No answer: tried again after the freshness floor.
    case failed
    /// Another instance sharing the Redis holds the revalidation: its outcome reaches this one at
    /// its next check of the shared record, and this one does not try again before then.
    case elsewhere
}

/// The ``SourceRecord`` of every source this instance knows, checked against the shared tier's
/// records (with one) at most every ``checkInterval`` seconds, else kept on this instance's disk
/// (so results on disk are found again after a restart); and the
/// revalidations in flight (one per source), with those another instance holds.
final class SourceStates: Sendable {
    private struct Entry {
        var record: SourceRecord
        /// When the shared tier last confirmed the record (unix seconds).
        var checkedAt: Int64
    }

    /// The shared tier's records (with `--shared-cache` only).
    let shared: SharedSourceRecords?
    let checkInterval: Int64
    let now: @Sendable () -> Int64
    /// Records on this instance's disk (without the shared tier; with a cache directory only).
    let disk: DiskCache?
    /// Drops this instance's cached bytes of a source, and its results in memory, when its record
    /// changed or went elsewhere.
    private let dropLocalBytes: @Sendable (String) -> Void
    private let entries = Mutex<[String: Entry]>([:])
    private struct Revalidations {
        var inFlight: Set<String> = []
        /// Sources another instance is revalidating, and until when (unix seconds) none starts here.
        var deferred: [String: Int64] = [:]
    }

    private let revalidations = Mutex(Revalidations())
    private let observers = Mutex<[@Sendable (String, RevalidationOutcome) -> Void]>([])
    /// The most records kept; past it a quarter of them is dropped (and found again on use).
    static let capacity = 100_000

    init(shared: SharedSourceRecords?, disk: DiskCache?, checkInterval: Int, now: @escaping @Sendable () -> Int64,
         dropLocalBytes: @escaping @Sendable (String) -> Void) {
        self.shared = shared
        self.disk = shared == nil ? disk : nil
        self.checkInterval = Int64(max(0, checkInterval))
        self.now = now
        self.dropLocalBytes = dropLocalBytes
    }

    /// The record of `source` when it can be used without asking the shared tier first (on an
    /// event loop); nil when there is none or it is due for a check.
    func local(_ source: String) -> SourceRecord? {
        let now = now()
        return entries.withLock { entries in
            guard let entry = entries[source] else { return nil }
            return shared != nil && now >= entry.checkedAt + checkInterval ? nil : entry.record
        }
    }

    /// The record of `source` this instance knows, whether or not it is due for a check; nil when
    /// there is none.
    func known(_ source: String) -> SourceRecord? {
        entries.withLock { $0[source]?.record }
    }

    /// The record of `source`, checked against the shared tier when due. A record another instance
    /// replaced is taken over and one it removed (a purge) is forgotten, and with either this
    /// instance's cached bytes of the source are dropped. While the tier does not answer, what is
    /// known here is used.
    func current(_ source: String) async -> SourceRecord? {
        let now = now()
        let known = entries.withLock { $0[source] }
        guard let shared else {
            if let known { return known.record }
            guard let stored = await storedRecord(source) else { return nil }
            keep(stored, for: source, checkedAt: now)
            return stored
        }
        guard known.map({ now >= $0.checkedAt + checkInterval }) ?? true else { return known?.record }
        switch await shared.record(of: source) {
        case .failure:
            if let known { keep(known.record, for: source, checkedAt: now) }
            return known?.record
        case .success(nil):
            if known != nil {
                _ = entries.withLock { $0.removeValue(forKey: source) }
                dropLocalBytes(source)
            }
            return nil
        case .success(let record?):
            if let known, known.record.identity != record.identity { dropLocalBytes(source) }
            keep(record, for: source, checkedAt: now)
            return record
        }
    }

    /// Keeps a new version of `source` here and in the shared tier.
    func save(_ record: SourceRecord, for source: String) async {
        keep(record, for: source, checkedAt: now())
        await shared?.save(record, of: source)
        await store(record, source)
    }

    /// Keeps a record another instance made, read from the shared tier.
    func adopt(_ record: SourceRecord, for source: String) {
        keep(record, for: source, checkedAt: now())
    }

    /// Keeps a renewed record of an unchanged source, where its version is still the one known:
    /// here only if this instance still has it, in the shared tier only over a record of the same
    /// version still there (neither brings back a source purged meanwhile, nor an old version
    /// another instance saw change).
    func renew(_ record: SourceRecord, for source: String) async {
        let now = now()
        let kept = entries.withLock { entries in
            guard entries[source]?.record.identity == record.identity else { return false }
            entries[source] = Entry(record: record, checkedAt: now)
            return true
        }
        if kept {
            await shared?.renew(record, of: source)
            await store(record, source)
        }
    }

    /// Forgets `source` here and in the shared tier.
    func forget(_ source: String) async {
        _ = entries.withLock { $0.removeValue(forKey: source) }
        await shared?.remove(source)
        if let disk { _ = try? await CPUWork.run { disk.removeData(forKey: Self.diskKey(source)) } }
    }

    /// The disk cache's key of `source`'s record.
    static func diskKey(_ source: String) -> String { source }

    /// `source`'s record on disk, read on a worker thread.
    private func storedRecord(_ source: String) async -> SourceRecord? {
        guard let disk else { return nil }
        let data = try? await CPUWork.run { disk.data(forKey: Self.diskKey(source)) }
        return (data ?? nil).flatMap { try? JSONDecoder().decode(SourceRecord.self, from: $0) }
    }

    /// Writes `record` to disk on a worker thread (a write that fails leaves the source to be
    /// fetched again after a restart).
    private func store(_ record: SourceRecord, _ source: String) async {
        guard let disk, let data = try? JSONEncoder().encode(record) else { return }
        _ = try? await CPUWork.run { try disk.setData(data, forKey: Self.diskKey(source)) }
    }

    private func keep(_ record: SourceRecord, for source: String, checkedAt: Int64) {
        entries.withLock { entries in
            if entries[source] == nil, entries.count >= Self.capacity {
                for key in Array(entries.keys.prefix(Self.capacity / 4)) { entries.removeValue(forKey: key) }
            }
            entries[source] = Entry(record: record, checkedAt: checkedAt)
        }
    }

    // MARK: Revalidations

    /// Claims the revalidation of `source`; false when one is already in flight, or another
    /// instance was found revalidating it less than a check interval ago.
    func beginRevalidation(_ source: String) -> Bool {
        let now = now()
        return revalidations.withLock { revalidations in
            if let until = revalidations.deferred[source] {
                guard now >= until else { return false }
                revalidations.deferred[source] = nil
            }
            return revalidations.inFlight.insert(source).inserted
        }
    }

    /// Ends the revalidation of `source` and tells the observers how it went. One another
    /// instance holds (``RevalidationOutcome/elsewhere``) is not tried here again for a check
    /// interval (at least a second).
    func endRevalidation(_ source: String, _ outcome: RevalidationOutcome) {
        let until = now() + max(1, checkInterval)
        revalidations.withLock { revalidations in
            revalidations.inFlight.remove(source)
            guard outcome == .elsewhere else { return }
            if revalidations.deferred.count >= Self.capacity { revalidations.deferred.removeAll() }
            revalidations.deferred[source] = until
        }
        for observer in observers.withLock({ $0 }) { observer(source, outcome) }
    }

    /// Revalidations in flight.
    var revalidationsInFlight: Int { revalidations.withLock { $0.inFlight.count } }

    /// Calls `body` after each revalidation ends, with the source and its outcome.
    func observeRevalidations(_ body: @escaping @Sendable (String, RevalidationOutcome) -> Void) {
        observers.withLock { $0.append(body) }
    }
}
