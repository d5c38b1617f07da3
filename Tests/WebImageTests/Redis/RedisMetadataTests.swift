import Foundation
import Testing
@testable import WebImageRedis

/// `RedisStore.setMetadata`: one script compares and replaces the value, keeping its time-to-live
/// without `SET … KEEPTTL` (Redis 6), so it works on Redis 5 too.
@Suite("Redis metadata updates on a real redis-server",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct RedisMetadataTests {
    private func stored(_ store: RedisStore, _ payload: Data, metadata: Data, key: String, ttl: Int) async -> Bool {
        let done = Watched<Bool?>(nil)
        store.store(payload, metadata: metadata, forKey: key, ttl: ttl) { ok in done.update { $0 = ok } }
        await done.wait("the write") { $0 != nil }
        return done.value == true
    }

    private func setMetadata(_ store: RedisStore, _ metadata: Data, key: String) async {
        let done = Watched(false)
        store.setMetadata(metadata, forKey: key) { done.update { $0 = true } }
        await done.wait("the metadata update") { $0 }
    }

    @Test func replacesTheMetadataAndKeepsTheBytesAndTimeToLive() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "meta")
            let payload = Data((0..<5000).map { UInt8($0 & 0xff) })
            #expect(await stored(store, payload, metadata: Data("old".utf8), key: "k", ttl: 600))
            #expect(await stored(store, payload, metadata: Data("old".utf8), key: "forever", ttl: 0))

            await setMetadata(store, Data("new, and longer".utf8), key: "k")
            await setMetadata(store, Data("new".utf8), key: "forever")
            let entry = try #require(await store.entry(forKey: "k"))
            #expect(entry.payload == payload)
            #expect(entry.metadata == Data("new, and longer".utf8))
            let ttl = try #require(await store.timeToLive(forKey: "k"))
            #expect(ttl > 0 && ttl <= 600_000)
            #expect(await store.entry(forKey: "forever")?.metadata == Data("new".utf8))
            #expect(await store.timeToLive(forKey: "forever") == -1)

            // No entry: nothing is created.
            await setMetadata(store, Data("x".utf8), key: "missing")
            #expect(await store.contains(key: "missing") == false)
        }
    }

    @Test func aValueChangedSinceItWasReadIsLeftAlone() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "meta")
            let name = store.keys.value("k")
            let read = RedisEnvelope(payload: Data("first".utf8), metadata: Data("a".utf8)).encoded()
            let newer = RedisEnvelope(payload: Data("second".utf8), metadata: Data("b".utf8)).encoded()
            _ = await client.command([Data("SET".utf8), name, newer, Data("PX".utf8), Data("600000".utf8)], routingKey: name)
            let replacement = RedisEnvelope(payload: Data("first".utf8), metadata: Data("c".utf8)).encoded()

            // Read `first`, but `second` was written meanwhile: the update does nothing.
            let stale = await client.command(RedisStore.replaceIfUnchanged(name, expected: read, replacement: replacement),
                                             routingKey: name)
            #expect(try stale.get() == .integer(0))
            #expect(await store.entry(forKey: "k")?.payload == Data("second".utf8))

            // Against the value it read, it replaces and keeps the time-to-live.
            let fresh = await client.command(RedisStore.replaceIfUnchanged(name, expected: newer, replacement: replacement),
                                             routingKey: name)
            #expect(try fresh.get() == .integer(1))
            #expect(await store.entry(forKey: "k")?.metadata == Data("c".utf8))
            let ttl = try #require(await store.timeToLive(forKey: "k"))
            #expect(ttl > 0 && ttl <= 600_000)
        }
    }
}
