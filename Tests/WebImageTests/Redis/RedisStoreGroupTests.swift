import Foundation
import Testing
@testable import WebImageRedis

/// Entries stored in a group are removed together, in batches, and only theirs: the image
/// server's results of one source, dropped when the source changes or is purged.
@Suite("Redis store: groups",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct RedisStoreGroupTests {
    /// Writes `value` under `key` in `group` and waits until Redis took it.
    private func write(_ store: RedisStore, _ key: String, in group: String, ttl: Int? = nil) async -> Bool {
        let done = Watched<Bool?>(nil)
        store.store(Data(key.utf8), forKey: key, inGroup: group, ttl: ttl) { ok in done.update { $0 = ok } }
        await done.wait("the write to \(key)") { $0 != nil }
        return done.value == true
    }

    @Test func removingAGroupRemovesItsEntriesInBatchesAndNoOthers() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "results", defaultTTL: 300)
            // More members than one batch takes.
            let many = RedisStore.groupBatch * 2 + 3
            for index in 0..<many { #expect(await write(store, "a-\(index)", in: "source A")) }
            #expect(await write(store, "b-0", in: "source B"))
            // An entry outside every group, and one of A's written again: still one member.
            store.store(Data("plain".utf8), forKey: "plain")
            #expect(await write(store, "a-0", in: "source A"))
            await store.flush(forKey: "plain")
            #expect(await store.data(forKey: "a-0") == Data("a-0".utf8))

            #expect(await store.removeGroup("source A") == many)
            for index in [0, 1, RedisStore.groupBatch, many - 1] {
                #expect(await !store.contains(key: "a-\(index)"))
            }
            #expect(await store.data(forKey: "b-0") == Data("b-0".utf8))
            #expect(await store.data(forKey: "plain") == Data("plain".utf8))
            // The group itself is gone: removing it again finds nothing.
            #expect(await store.removeGroup("source A") == 0)
            #expect(await store.removeGroup("never stored") == 0)
        }
    }

    @Test func aGroupLivesAsLongAsItsLongestLivedEntry() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "results", defaultTTL: 300)
            #expect(await write(store, "long", in: "g", ttl: 1000))
            #expect(await write(store, "short", in: "g", ttl: 50))
            let set = store.keys.group("g")
            guard case .success(.integer(let left)) = await client.command([Data("TTL".utf8), set], routingKey: set) else {
                Issue.record("no TTL for the group")
                return
            }
            #expect(left > 900, "a shorter-lived member never shortens the group's life")
            #expect(await store.timeToLive(forKey: "short").map { $0 <= 50_000 } == true)
            #expect(await store.removeGroup("g") == 2)
        }
    }

    @Test func aGroupOnADownRedisIsANilAnswerNeverATrap() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration {
                $0.connectTimeoutMilliseconds = 200
                $0.operationTimeoutMilliseconds = 200
            })
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "results")
            await redis.kill()
            let done = Watched<Bool?>(nil)
            store.store(Data("x".utf8), forKey: "x", inGroup: "g") { ok in done.update { $0 = ok } }
            await done.wait("the refused write") { $0 != nil }
            #expect(done.value == false)
            #expect(await store.removeGroup("g") == nil)
        }
    }
}
