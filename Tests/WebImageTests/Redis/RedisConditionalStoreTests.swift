import Foundation
import Testing
@testable import WebImageRedis

/// `RedisStore.lookup` tells a miss from a failure; `replace(_:forKey:ifStillIs:)` writes only over
/// the entry that was read, atomically, so of concurrent replacers exactly one wins; neither ever
/// throws or traps when Redis is down or silent.
@Suite("Redis store: conditional lookup and replace",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct RedisConditionalStoreTests {
    /// Writes `value` under `key` (with `ttl`) and waits until Redis took it.
    private func write(_ store: RedisStore, _ key: String, _ value: String, ttl: Int? = nil) async -> Bool {
        let done = Watched<Bool?>(nil)
        store.store(Data(value.utf8), forKey: key, ttl: ttl) { ok in done.update { $0 = ok } }
        await done.wait("the write to \(key)") { $0 != nil }
        return done.value == true
    }

    /// The entry for `key` (nil on a miss); throws when Redis did not answer.
    private func entry(_ store: RedisStore, _ key: String) async throws -> RedisEnvelope? {
        try await store.lookup(forKey: key).get()
    }

    /// The payload of the entry for `key` (nil on a miss); throws when Redis did not answer.
    private func payload(_ store: RedisStore, _ key: String) async throws -> Data? {
        try await entry(store, key)?.payload
    }

    /// Whether the conditional replace replaced; throws when Redis did not answer.
    private func replaced(_ store: RedisStore, _ data: Data, forKey key: String, ifStillIs expected: RedisEnvelope,
                          ttl: Int? = nil) async throws -> Bool {
        try await store.replace(data, forKey: key, ifStillIs: expected, ttl: ttl).get()
    }

    @Test func aLookupFindsAnEntryAndTellsAMissFromAnErrorReply() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "conditional")
            let miss = try await entry(store, "k")
            #expect(miss == nil, "a miss")
            #expect(await write(store, "k", "one"))
            #expect(try await payload(store, "k") == Data("one".utf8))

            // A value that is not an envelope reads as a miss: the next write replaces it.
            let name = store.keys.value("corrupt")
            _ = await client.command([Data("SET".utf8), name, Data("not ours".utf8)], routingKey: name)
            #expect(try await entry(store, "corrupt") == nil)

            // A key of another type makes Redis answer GET with an error: a failure, not a miss.
            let hash = store.keys.value("hash")
            _ = await client.command([Data("HSET".utf8), hash, Data("f".utf8), Data("v".utf8)], routingKey: hash)
            #expect(await store.lookup(forKey: "hash").failureKind == .reply)
        }
    }

    @Test func aReplaceWritesOnlyOverTheEntryThatWasRead() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "conditional", defaultTTL: 600)

            // Nothing there: nothing written.
            let phantom = RedisEnvelope(payload: Data("one".utf8))
            #expect(try await replaced(store, Data("two".utf8), forKey: "k", ifStillIs: phantom) == false)
            #expect(try await entry(store, "k") == nil)

            // The entry read: replaced, with the time-to-live restarted.
            #expect(await write(store, "k", "one", ttl: 30))
            let read = try #require(try await entry(store, "k"))
            #expect(try await replaced(store, Data("two".utf8), forKey: "k", ifStillIs: read) == true)
            #expect(try await payload(store, "k") == Data("two".utf8))
            let ttl = try #require(await store.timeToLive(forKey: "k"))
            #expect(ttl > 30_000 && ttl <= 600_000, "the default time-to-live, restarted: \(ttl)")

            // The entry changed since it was read: the newer value stands.
            #expect(try await replaced(store, Data("three".utf8), forKey: "k", ifStillIs: read) == false)
            #expect(try await payload(store, "k") == Data("two".utf8))
            // Gone since it was read: not brought back.
            let current = try #require(try await entry(store, "k"))
            await store.remove(forKey: "k")
            #expect(try await replaced(store, Data("four".utf8), forKey: "k", ifStillIs: current) == false)
            #expect(try await entry(store, "k") == nil)

            // A time-to-live of its own, or none.
            #expect(await write(store, "k", "five"))
            let fifth = try #require(try await entry(store, "k"))
            #expect(try await replaced(store, Data("six".utf8), forKey: "k", ifStillIs: fifth, ttl: 0) == true)
            #expect(await store.timeToLive(forKey: "k") == -1)
        }
    }

    @Test func ofConcurrentReplacersOfOneEntryExactlyOneWins() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration { $0.connections = 4 })
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "conditional")
            #expect(await write(store, "k", "start"))
            let read = try #require(try await entry(store, "k"))
            let outcomes = await withTaskGroup(of: (Int, Bool?).self) { group in
                for writer in 0..<16 {
                    group.addTask {
                        (writer, try? await store.replace(Data("writer \(writer)".utf8), forKey: "k", ifStillIs: read).get())
                    }
                }
                return await group.reduce(into: [Int: Bool?]()) { $0[$1.0] = $1.1 }
            }
            let winners = outcomes.filter { $0.value == true }.map(\.key)
            #expect(winners.count == 1, "\(outcomes)")
            #expect(outcomes.values.allSatisfy { $0 != nil }, "every replacer had an answer")
            let winner = try #require(winners.first)
            #expect(try await payload(store, "k") == Data("writer \(winner)".utf8))
        }
    }

    @Test func aLeaseTriedForIsTakenByOneAndNeverWaitedFor() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "conditional")
            let first = try await store.tryLease(forKey: "work", leaseMilliseconds: 600_000).get()
            let lease = try #require(first, "free: taken")
            let second = try await store.tryLease(forKey: "work", leaseMilliseconds: 600_000).get()
            #expect(second == nil, "held: not taken, and no wait")
            let other = try await store.tryLease(forKey: "other work", leaseMilliseconds: 600_000).get()
            #expect(other != nil, "a lease per key")
            store.release(lease)
            await client.flush()
            let third = try await store.tryLease(forKey: "work", leaseMilliseconds: 600_000).get()
            #expect(third != nil, "released: taken again")
            await redis.kill()
            #expect(await store.tryLease(forKey: "work", leaseMilliseconds: 600_000).failureKind != nil)
        }
    }

    @Test func aDownOrSilentRedisIsAFailureNeverATrap() async throws {
        try await withRedisServer { redis in
            // The entry is written and read with the usual (long) timeouts, so a slow instrumented
            // run cannot fail the setup; only the calls meant to fail use the 50 ms client.
            let healthy = RedisClient(configuration: redis.configuration())
            defer { healthy.close() }
            let setup = RedisStore(client: healthy, namespace: "conditional")
            #expect(await write(setup, "k", "one"))
            let read = try #require(try await entry(setup, "k"))

            let client = RedisClient(configuration: redis.configuration {
                $0.connections = 1
                $0.connectTimeoutMilliseconds = 50
                $0.operationTimeoutMilliseconds = 50
            })
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "conditional")
            // Paused: it accepts connections and answers nothing; every call ends at its timeout.
            redis.pause()
            let silentLookup = await store.lookup(forKey: "k")
            let silentReplace = await store.replace(Data("two".utf8), forKey: "k", ifStillIs: read)
            redis.resume()
            #expect(silentLookup.failureKind != nil)
            #expect(silentReplace.failureKind != nil)

            await redis.kill()
            #expect(await store.lookup(forKey: "k").failureKind != nil)
            #expect(await store.replace(Data("three".utf8), forKey: "k", ifStillIs: read).failureKind != nil)
        }
    }
}
