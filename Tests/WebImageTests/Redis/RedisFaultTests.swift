import Foundation
import Testing
@testable import WebImageRedis

@Suite("Redis faults: down, restarted, slow",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct RedisFaultTests {
    /// Writes `value` under `key` and waits until Redis took it.
    private func write(_ store: RedisStore, _ key: String, _ value: String) async -> Bool {
        let done = Watched<Bool?>(nil)
        store.store(Data(value.utf8), forKey: key) { ok in done.update { $0 = ok } }
        await done.wait("the write to \(key)") { $0 != nil }
        return done.value == true
    }

    @Test func killedRedisIsAMissAndOpensTheBreakerThenRecoversAfterRestart() async throws {
        try await withRedisServer { redis in
            let clock = ManualNanoClock()
            let log = BreakerLog()
            let client = RedisClient(configuration: redis.configuration { $0.connections = 2 },
                                     now: { clock.now }, transition: log.record)
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "faults")
            #expect(await write(store, "a", "1"))
            #expect(await store.data(forKey: "a") == Data("1".utf8))

            await redis.kill()
            // Down: misses, never errors thrown, and the breaker opens after the threshold (2).
            #expect(await store.data(forKey: "a") == nil)
            #expect(await store.data(forKey: "b") == nil)
            #expect(client.breaker.state == .open)
            #expect(log.states.value == [.open])
            #expect(client.statistics.breakerOpenings == 1)

            // Open: Redis is not asked; a thousand skipped reads change nothing but a counter.
            let errorsBefore = client.statistics.errors
            for _ in 0..<1000 { #expect(await store.data(forKey: "a") == nil) }
            #expect(client.statistics.errors == errorsBefore)
            #expect(client.statistics.skipped >= 1000)

            // Back-off passes while Redis is still down: one probe fails, the breaker opens again for longer.
            clock.advance(milliseconds: 1000)
            #expect(await store.data(forKey: "a") == nil)
            await log.wait(for: .open, count: 2)
            clock.advance(milliseconds: 1000)
            #expect(await store.data(forKey: "a") == nil)  // 2 s back-off now: still open, no probe
            #expect(log.states.value == [.open, .probing, .open])

            try await redis.restart()
            clock.advance(milliseconds: 1000)
            #expect(await store.data(forKey: "a") == nil)  // starts the probe, answered as a miss
            await log.wait(for: .closed)
            #expect(client.breaker.state == .closed)
            // The restarted Redis is empty; the tier works again.
            #expect(await write(store, "a", "2"))
            #expect(await store.data(forKey: "a") == Data("2".utf8))
            #expect(log.states.value == [.open, .probing, .open, .probing, .closed])
        }
    }

    @Test func pausedRedisTimesOutWithinTheBudgetAndOpensTheBreaker() async throws {
        try await withRedisServer { redis in
            let clock = ManualNanoClock()
            let log = BreakerLog()
            let client = RedisClient(configuration: redis.configuration {
                $0.connections = 1
                $0.connectTimeoutMilliseconds = 50
                $0.operationTimeoutMilliseconds = 50
            }, now: { clock.now }, transition: log.record)
            defer { client.close() }
            let store = RedisStore(client: client, namespace: "slow")
            #expect(await write(store, "a", "1"))

            redis.pause()
            defer { redis.resume() }
            // Two reads on one connection, each on a plain thread (so a busy cooperative pool in a
            // loaded test run cannot add to what is measured): the first waits its 50 ms timeout,
            // the second times out too or is cut at its deadline in the queue.
            let name = store.keys.value("a")
            let command = [Data("GET".utf8), name]
            async let first = offThePool { () -> (RedisError.Kind?, Duration) in
                let started = ContinuousClock.now
                let result = client.commandBlocking(command, routingKey: name)
                return (result.failureKind, ContinuousClock.now - started)
            }
            async let second = offThePool { () -> (RedisError.Kind?, Duration) in
                let started = ContinuousClock.now
                let result = client.commandBlocking(command, routingKey: name)
                return (result.failureKind, ContinuousClock.now - started)
            }
            var answers = await [first, second]
            #expect(Set(answers.map(\.0)).isSubset(of: [.io, .deadline, .unavailable]))
            #expect(answers.contains { $0.0 == .io }, "one read timed out: \(answers)")
            // Only timeouts against Redis count for the breaker, not a wait in this process's
            // queue: one more read then (its turn comes at once) fails against Redis and opens it.
            if answers.filter({ $0.0 == .io }).count < 2 {
                answers.append(await offThePool { () -> (RedisError.Kind?, Duration) in
                    let started = ContinuousClock.now
                    let result = client.commandBlocking(command, routingKey: name)
                    return (result.failureKind, ContinuousClock.now - started)
                })
                #expect(answers.last?.0 == .io || answers.last?.0 == .connect)
            }
            #expect(client.breaker.state == .open)
            #expect(client.statistics.queueTimeouts == answers.filter { $0.0 == .deadline }.count)
            // "Not hung" is the point: two 50 ms timeouts and scheduling, bounded far below the
            // seconds a hang would take, with room for a saturated 2-core machine.
            for (_, elapsed) in answers { #expect(elapsed < .seconds(10), "a read against a paused Redis took \(elapsed)") }
            // Open: answered without asking Redis.
            let before = client.statistics
            #expect(await store.data(forKey: "a") == nil)
            #expect(client.statistics.errors == before.errors)
            #expect(client.statistics.skipped == before.skipped + 1)

            redis.resume()
            clock.advance(milliseconds: 1000)
            _ = await store.data(forKey: "a")
            await log.wait(for: .closed)
            #expect(await store.data(forKey: "a") == Data("1".utf8))
        }
    }

    @Test func errorReplyLikeOutOfMemoryIsAMiss() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let setup = Data("setup".utf8)
            for command in [["CONFIG", "SET", "maxmemory", "1"], ["CONFIG", "SET", "maxmemory-policy", "noeviction"]] {
                _ = await client.command(command.map { Data($0.utf8) }, routingKey: setup)
            }
            let store = RedisStore(client: client, namespace: "full")
            #expect(await write(store, "a", "1") == false)
            #expect(client.statistics.errors >= 1)
            #expect(client.statistics.writes == 0)
        }
    }
}

extension Result where Failure == RedisError {
    /// The kind of failure, nil on success.
    var failureKind: RedisError.Kind? {
        if case .failure(let error) = self { return error.kind }
        return nil
    }
}
