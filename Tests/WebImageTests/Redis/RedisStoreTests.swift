import Foundation
import Testing
@testable import WebImageRedis

@Suite("Redis store on a real redis-server",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct RedisStoreTests {
    @Test func roundTripWithMetadataAndTTL() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "test", defaultTTL: 600)
            #expect(await store.entry(forKey: "https://example.com/a.png") == nil)
            let payload = Data((0..<10_000).map { UInt8($0 & 0xff) })
            let stored = Watched(false)
            store.store(payload, metadata: Data("meta".utf8), forKey: "https://example.com/a.png") { ok in
                stored.update { $0 = ok }
            }
            await stored.wait("the write") { $0 }
            let entry = try #require(await store.entry(forKey: "https://example.com/a.png"))
            #expect(entry.payload == payload)
            #expect(entry.metadata == Data("meta".utf8))
            let ttl = try #require(await store.timeToLive(forKey: "https://example.com/a.png"))
            #expect(ttl > 0 && ttl <= 600_000)

            // A per-entry time-to-live overrides the default (longer than it, so no stall of a
            // loaded machine can expire the entry before it is read); 0 keeps the entry until
            // Redis evicts it.
            let own = Watched(false)
            store.store(payload, forKey: "own", ttl: 5000) { ok in own.update { $0 = ok } }
            await own.wait("the write with its own time-to-live") { $0 }
            let ownTTL = try #require(await store.timeToLive(forKey: "own"))
            #expect(ownTTL > 600_000 && ownTTL <= 5_000_000)
            let forever = Watched(false)
            store.store(payload, forKey: "forever", ttl: 0) { ok in forever.update { $0 = ok } }
            await forever.wait("the write without a time-to-live") { $0 }
            #expect(await store.timeToLive(forKey: "forever") == -1)

            #expect(client.statistics.hits == 1)
            #expect(client.statistics.misses == 1)
            #expect(client.statistics.writes == 3)
            await store.removeAll()
            #expect(await store.contains(key: "own") == false)
        }
    }

    @Test func corruptValueIsAMissAndIsOverwritten() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "test")
            let good = RedisEnvelope(payload: Data("image bytes".utf8)).encoded()
            var flipped = good
            flipped[flipped.count / 2] ^= 0x40
            for bad in [Data("not ours".utf8), flipped, good.prefix(good.count - 1), Data()] {
                let name = store.keys.value("k")
                _ = await client.command([Data("SET".utf8), name, bad], routingKey: name)
                #expect(await store.entry(forKey: "k") == nil)
            }
            #expect(client.statistics.corrupt == 4)
            let rewritten = Watched(false)
            store.store(Data("fresh".utf8), forKey: "k") { ok in rewritten.update { $0 = ok } }
            await rewritten.wait("the overwrite") { $0 }
            #expect(await store.data(forKey: "k") == Data("fresh".utf8))
        }
    }

    @Test func envelopeRejectsOtherVersions() {
        var frame = RedisEnvelope(payload: Data([1, 2, 3]), metadata: Data([9])).encoded()
        #expect(RedisEnvelope(decoding: frame)?.payload == Data([1, 2, 3]))
        frame[4] = 1
        #expect(RedisEnvelope(decoding: frame) == nil)
    }

    /// A frame read back whole, also from a slice of a larger buffer; any flipped bit, a frame
    /// cut short or one with bytes after it is refused.
    @Test func envelopeChecksumFindsDamage() {
        let envelope = RedisEnvelope(payload: Data((0..<5000).map { UInt8($0 % 251) }), metadata: Data("{}".utf8), storedAt: 42)
        let frame = envelope.encoded()
        #expect(RedisEnvelope(decoding: frame) == envelope)
        let padded = Data([7, 7, 7]) + frame + Data([7])
        #expect(RedisEnvelope(decoding: padded[3..<(3 + frame.count)]) == envelope)
        for index in stride(from: 0, to: frame.count, by: 97) {
            var damaged = frame
            damaged[index] ^= 0x10
            #expect(RedisEnvelope(decoding: damaged) == nil, "bit flipped at \(index)")
        }
        #expect(RedisEnvelope(decoding: frame.prefix(frame.count - 1)) == nil)
        #expect(RedisEnvelope(decoding: frame + Data([0])) == nil)
    }

    @Test func authenticationAndDatabase() async throws {
        try await withRedisServer { redis in
            let admin = RedisClient(configuration: redis.configuration())
            defer { admin.close() }
            let setup = Data("setup".utf8)
            for command in [["ACL", "SETUSER", "cache", "on", ">pw", "~*", "+@all"], ["CONFIG", "SET", "requirepass", "top"]] {
                let reply = await admin.command(command.map { Data($0.utf8) }, routingKey: setup)
                #expect((try? reply.get()) == .status("OK"))
            }
            let url = "redis://cache:pw@127.0.0.1:\(redis.port)/2"
            let client = RedisClient(configuration: try RedisConfiguration(url: url))
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "auth")
            let written = Watched(false)
            store.store(Data("x".utf8), forKey: "k") { ok in written.update { $0 = ok } }
            await written.wait("the authenticated write") { $0 }
            #expect(await store.data(forKey: "k") == Data("x".utf8))

            var wrong = try RedisConfiguration(url: "redis://cache:nope@127.0.0.1:\(redis.port)/2")
            wrong.connections = 1
            let refused = RedisClient(configuration: wrong)
            defer { refused.close() }
            guard case .failure(let error) = await refused.command([Data("PING".utf8)], routingKey: setup) else {
                Issue.record("a wrong password was accepted")
                return
            }
            #expect(error.kind == .connect)
            #expect(error.message.contains("AUTH"))
        }
    }
}

@Suite("Redis single flight",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct RedisSingleFlightTests {
    @Test func oneLeadsTheOtherWaitsForItsValue() async throws {
        try await withRedisServer { redis in
            let a = RedisClient(configuration: redis.configuration()), b = RedisClient(configuration: redis.configuration())
            defer { a.close(); b.close() }
            let storeA = RedisStore(client: a, namespace: "flight"), storeB = RedisStore(client: b, namespace: "flight")
            // A lease that outlives any stall of a loaded machine: B must find it held.
            guard case .lead(let lease) = await storeA.valueOrLease(forKey: "k", leaseMilliseconds: 600_000) else {
                Issue.record("the first asker did not get the lease")
                return
            }
            // B finds the lease held and waits; A delivers, then releases.
            async let waiting = storeB.valueOrLease(forKey: "k", waitMilliseconds: 60_000)
            let waited = Watched(0)
            b.observeStatistics { statistics in waited.update { $0 = statistics.leasesWaited } }
            if b.statistics.leasesWaited == 0 { await waited.wait("B to find the lease held") { $0 >= 1 } }
            storeA.store(Data("made once".utf8), forKey: "k")
            storeA.release(lease)
            guard case .found(let envelope) = await waiting else {
                Issue.record("the waiter did not get the holder's value")
                return
            }
            #expect(envelope.payload == Data("made once".utf8))
            #expect(b.statistics.leaseWaitHits == 1)
            // Now the value is there: anyone asking gets it without a lease.
            guard case .found = await storeA.valueOrLease(forKey: "k") else {
                Issue.record("a stored value was not found")
                return
            }
        }
    }

    /// A value stored (and its lease released) after the caller's read missed is found by
    /// `leaseOrValue`, not made again under a new lease; a damaged value still leads to a lease.
    @Test func aValueStoredSinceTheReadIsFoundWithoutALease() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "flight")
            #expect(await store.entry(forKey: "k") == nil)
            let written = Watched(false)
            store.store(Data("made elsewhere".utf8), forKey: "k") { ok in written.update { $0 = ok } }
            await written.wait("the other instance's write") { $0 }
            guard case .found(let envelope) = await store.leaseOrValue(forKey: "k") else {
                Issue.record("the stored value was not found")
                return
            }
            #expect(envelope.payload == Data("made elsewhere".utf8))
            #expect(client.statistics.leasesTaken == 0)
            let raw = store.keys.value("bad")
            let set = await client.command([Data("SET".utf8), raw, Data("not an envelope".utf8)], routingKey: raw)
            #expect((try? set.get()) == .status("OK"))
            guard case .lead = await store.leaseOrValue(forKey: "bad") else {
                Issue.record("a damaged value should lead to a lease")
                return
            }
            #expect(client.statistics.leasesTaken == 1)
        }
    }

    @Test func aHolderThatFailsLetsTheWaiterWorkAlone() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "flight")
            guard case .lead(let lease) = await store.valueOrLease(forKey: "k", leaseMilliseconds: 600_000) else {
                Issue.record("no lease")
                return
            }
            async let waiting = store.valueOrLease(forKey: "k", waitMilliseconds: 60_000)
            let waited = Watched(0)
            client.observeStatistics { statistics in waited.update { $0 = statistics.leasesWaited } }
            if client.statistics.leasesWaited == 0 { await waited.wait("the lease to be found held") { $0 >= 1 } }
            store.release(lease)  // released without a value: its work failed
            guard case .alone = await waiting else {
                Issue.record("the waiter should work alone once the holder gave up")
                return
            }
        }
    }

    @Test func redisDownMeansWorkAlone() async throws {
        var configuration = RedisConfiguration(host: "127.0.0.1", port: try RedisTestServer.freeLoopbackPort())
        configuration.connectTimeoutMilliseconds = 2000
        let client = RedisClient(configuration: configuration)
        defer { client.close() }
        guard case .alone = await RedisStore(client: client, namespace: "flight").valueOrLease(forKey: "k") else {
            Issue.record("without Redis there is no lease to wait on")
            return
        }
    }
}
