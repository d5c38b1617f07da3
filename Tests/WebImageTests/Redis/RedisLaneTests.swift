import Dispatch
import Foundation
import Testing
@testable import WebImageRedis

/// A connection lane's blocking calls: bounded by their deadline even behind queued work, and
/// refused (not deadlocked) on the lane's own queue; work queued here past its deadline is this
/// process's congestion, which the breaker does not count against Redis.
@Suite("Redis connection lanes on a real redis-server",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct RedisLaneTests {
    /// `EXISTS name`, asked through a client with the suite's generous timeout: the clients under
    /// test have 20–50 ms ones, which a loaded machine can exceed for a single command.
    private static func exists(_ name: Data, in redis: RedisTestServer) async -> RedisReply? {
        let checker = RedisClient(configuration: redis.configuration())
        defer { checker.close() }
        return try? await checker.command([Data("EXISTS".utf8), name], routingKey: name).get()
    }

    /// Holds `lane` busy (after connecting) until `release` is signalled; returns once it is busy.
    private func occupy(_ lane: RedisLane, until release: DispatchSemaphore) async {
        let busy = Watched(false)
        lane.enqueue(deadline: .max) { _ in
            busy.update { $0 = true }
            release.wait()
        }
        await busy.wait("the lane to be busy") { $0 }
    }

    @Test func aBlockingCallBehindQueuedWorkReturnsAtItsDeadlineAndNeverRuns() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration {
                $0.connections = 1
                $0.operationTimeoutMilliseconds = 50
            })
            defer { client.close() }
            let name = Data("webimage:lane:k".utf8)
            let release = DispatchSemaphore(value: 0)
            await occupy(client.lane(for: name), until: release)

            // The lane stays busy until this call has returned: only its own deadline can end it.
            let answer = Watched<RedisError.Kind??>(nil)
            Thread {
                let result = client.commandBlocking([Data("SET".utf8), name, Data("late".utf8)], routingKey: name)
                answer.update { $0 = .some(result.failureKind) }
            }.start()
            let returned = await answer.wait("the blocking call to return while the lane is busy") { $0 != nil }
            release.signal()
            if !returned { await answer.wait("the blocking call to return") { $0 != nil } }
            #expect(answer.value == .some(.deadline))
            #expect(client.breaker.state == .closed)
            #expect(client.statistics.queueTimeouts == 1)
            #expect(client.statistics.errors == 0)

            // The abandoned SET never reached Redis, even though its turn came later.
            await client.flush()
            #expect(await Self.exists(name, in: redis) == .integer(0))
        }
    }

    @Test func aBlockingCallFromADoneCallbackOfItsLaneIsRefusedNotDeadlocked() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration { $0.connections = 2 })
            defer { client.close() }
            let name = Data("webimage:lane:a".utf8)
            // A key on the other connection, for a blocking call that may run from the callback.
            let other = try #require((0..<100).lazy.map { Data("webimage:lane:b\($0)".utf8) }
                .first { client.lane(for: $0) !== client.lane(for: name) })
            let answers = Watched<[RedisError.Kind?]?>(nil)
            client.send([Data("SET".utf8), name, Data("1".utf8)], routingKey: name) { _ in
                let same = client.commandBlocking([Data("GET".utf8), name], routingKey: name)
                let elsewhere = client.commandBlocking([Data("PING".utf8)], routingKey: other)
                answers.update { $0 = [same.failureKind, elsewhere.failureKind] }
            }
            await answers.wait("the done callback to finish") { $0 != nil }
            #expect(answers.value == [.reentrant, nil])
            #expect(client.breaker.state == .closed)
            // The lane still works.
            #expect(try client.commandBlocking([Data("GET".utf8), name], routingKey: name).get() == .data(Data("1".utf8)))
        }
    }

    /// A burst larger than a connection can serve in time: the writes that waited past their
    /// deadline in this process's queue are dropped, and the breaker stays closed.
    @Test func writesDroppedInTheLocalQueueDoNotOpenTheBreaker() async throws {
        try await withRedisServer { redis in
            let log = BreakerLog()
            let client = RedisClient(configuration: redis.configuration {
                $0.connections = 1
                $0.operationTimeoutMilliseconds = 20
            }, transition: log.record)
            defer { client.close() }
            let name = Data("webimage:lane:burst".utf8)
            let lane = client.lane(for: name)
            let busy = Watched(false)
            let release = DispatchSemaphore(value: 0)
            lane.enqueue(deadline: .max) { _ in
                busy.update { $0 = true }
                release.wait()
            }
            await busy.wait("the lane to be busy") { $0 }
            let dropped = Watched(0)
            for index in 0..<6 {
                client.send([Data("SET".utf8), name, Data("\(index)".utf8)], routingKey: name) { reply in
                    if reply == nil { dropped.update { $0 += 1 } }
                }
            }
            // Every write above was sent with a deadline before this instant; the lane stays busy
            // until it has passed (a wait for a time, which no load can make come early).
            let allLate = DispatchTime.now() + .milliseconds(4 * 20 + 1)
            DispatchQueue.global().async {
                _ = DispatchSemaphore(value: 0).wait(timeout: allLate)
                release.signal()
            }
            await dropped.wait("the late writes to be dropped") { $0 == 6 }
            #expect(client.statistics.queueTimeouts == 6)
            #expect(client.statistics.errors == 0)
            #expect(client.breaker.state == .closed)
            #expect(log.states.value.isEmpty)
            #expect(await Self.exists(name, in: redis) == .integer(0))
        }
    }
}
