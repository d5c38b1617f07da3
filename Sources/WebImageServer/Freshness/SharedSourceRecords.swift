import Foundation
import WebImageRedis

/// ``SourceRecord``s in the shared tier, one small JSON value per source in the `source-records`
/// namespace, so every instance sharing the Redis learns when a source changed or was purged; a
/// lease per new source, so instances that meet it at once record it once; and a lease per
/// revalidation, so instances that find a source stale at once ask its origin once.
struct SharedSourceRecords: Sendable {
    let store: RedisStore

    /// Records on `client`, each living `ttl` seconds from its last save or renewal (0: until
    /// Redis evicts it).
    init(client: RedisClient, ttl: Int) {
        store = RedisStore(client: client, namespace: "source-records", defaultTTL: ttl)
    }

    /// The record of `source`: nil inside when there is none (never made, purged or expired); a
    /// failure when the tier did not answer.
    func record(of source: String) async -> Result<SourceRecord?, RedisError> {
        // A value this version cannot read counts as none: the source is fetched again.
        await store.lookup(forKey: source).map { $0.flatMap { try? JSONDecoder().decode(SourceRecord.self, from: $0.payload) } }
    }

    /// Writes `record` for `source`.
    func save(_ record: SourceRecord, of source: String) async {
        guard let value = try? JSONEncoder().encode(record) else { return }
        store.store(value, forKey: source)
        await store.flush(forKey: source)
    }

    /// Writes `record` (a renewal) over the record of `source` only while that is of the same
    /// version, and only over the one read here: a renewal that races a purge does not bring the
    /// purged source back, and one that races another instance's record of a change does not
    /// bring the old version back.
    func renew(_ record: SourceRecord, of source: String) async {
        guard case .success(let envelope?) = await store.lookup(forKey: source),
              let stored = try? JSONDecoder().decode(SourceRecord.self, from: envelope.payload),
              stored.identity == record.identity,
              let value = try? JSONEncoder().encode(record) else { return }
        _ = await store.replace(value, forKey: source, ifStillIs: envelope)
    }

    /// Removes the record of `source`.
    func remove(_ source: String) async {
        await store.remove(forKey: source)
    }

    /// What ``recordOrLease(of:leaseMilliseconds:waitMilliseconds:)`` found.
    enum Lookup {
        /// Another instance recorded the source (before, or while this one waited).
        case found(SourceRecord)
        /// This instance records it, then releases the lease.
        case lead(RedisLease)
        /// This instance records it without a lease (Redis unavailable, or the wait ran out).
        case alone
    }

    /// The record of `source`, or the lease to make it, waiting (bounded) for another instance
    /// making it.
    func recordOrLease(of source: String, leaseMilliseconds: Int, waitMilliseconds: Int) async -> Lookup {
        switch await store.valueOrLease(forKey: source, leaseMilliseconds: leaseMilliseconds, waitMilliseconds: waitMilliseconds) {
        case .found(let envelope):
            guard let record = try? JSONDecoder().decode(SourceRecord.self, from: envelope.payload) else { return .alone }
            return .found(record)
        case .lead(let lease): return .lead(lease)
        case .alone: return .alone
        }
    }

    /// The lease on revalidating `source`, living `milliseconds` unless released: nil inside while
    /// another instance holds it (and revalidates); a failure when the tier did not answer.
    func revalidationLease(of source: String, milliseconds: Int) async -> Result<RedisLease?, RedisError> {
        await store.tryLease(forKey: "revalidation " + source, leaseMilliseconds: milliseconds)
    }

    func release(_ lease: RedisLease) {
        store.release(lease)
    }
}
