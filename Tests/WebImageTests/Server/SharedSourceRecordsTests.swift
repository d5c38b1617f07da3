import Foundation
import Testing
@testable import WebImageRedis
@testable import WebImageServer

/// Source records in the shared tier: a renewal of an unchanged source writes only over a record
/// of the same version still there, so neither a purge nor another instance's record of a change
/// is undone by an instance that had not seen it yet.
@Suite("Server: shared source records",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct SharedSourceRecordsTests {
    private func record(_ identity: String, freshUntil: Int64) -> SourceRecord {
        SourceRecord(identity: identity, etag: "\"\(identity)\"", lastModified: nil, lifetime: 100, freshUntil: freshUntil)
    }

    /// The shared record of `source` (nil: none); throws when Redis did not answer.
    private func stored(_ records: SharedSourceRecords, _ source: String) async throws -> SourceRecord? {
        try await records.record(of: source).get()
    }

    @Test func aRenewalDoesNotUndoAChangeAnotherInstanceRecorded() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let records = SharedSourceRecords(client: client, ttl: 300)
            let clock = Watched<Int64>(1000)
            // This instance checks the shared record once a minute.
            let states = SourceStates(shared: records, disk: nil, checkInterval: 60, now: { clock.value }) { _ in }
            let old = record("x", freshUntil: 1100)
            await states.save(old, for: "s")

            // Another instance found the source changed and recorded the new version.
            let new = record("y", freshUntil: 1150)
            await records.save(new, of: "s")
            // This one, not due for a check yet, renews the old version (a 304, or a failed revalidation).
            clock.update { $0 += 50 }
            await states.renew(old.renewed(at: clock.value), for: "s")
            let afterStaleRenewal = try await stored(records, "s")
            #expect(afterStaleRenewal == new, "the change stands")

            // A renewal of the version recorded there is written, with its new freshness.
            let renewed = new.renewed(at: clock.value)
            let other = SourceStates(shared: records, disk: nil, checkInterval: 60, now: { clock.value }) { _ in }
            #expect(await other.current("s") == new)
            await other.renew(renewed, for: "s")
            let afterRenewal = try await stored(records, "s")
            #expect(afterRenewal == renewed)
        }
    }

    @Test func aRenewalDoesNotBringBackAPurgedSource() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let records = SharedSourceRecords(client: client, ttl: 300)
            let states = SourceStates(shared: records, disk: nil, checkInterval: 60, now: { 1000 }) { _ in }
            let kept = record("x", freshUntil: 1100)
            await states.save(kept, for: "s")
            await records.remove("s")
            await states.renew(kept.renewed(at: 1000), for: "s")
            let afterPurge = try await stored(records, "s")
            #expect(afterPurge == nil, "still purged")
        }
    }
}
