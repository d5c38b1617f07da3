import Foundation
import Testing
@testable import WebImage
@testable import WebImageRedis
@testable import WebImageServer

/// Several `webimage serve` instances in one test process sharing one real redis-server.
@Suite("Server: shared cache tier on Redis",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct ServerSharedCacheTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 320, height: 240)))

    private func configuration(_ redis: RedisTestServer) -> ServerConfiguration {
        loopbackServerConfiguration {
            $0.sharedCache = redis.configuration()
            $0.sharedCacheTTL = 300
            // Long enough that a waiter never gives up on a loaded (or instrumented) run and
            // fetches alone: the tests count the origin's requests.
            $0.sharedCacheLeaseWait = 20 * SanitizerRun.slowdown
        }
    }

    /// Runs `body` with `count` servers on `configuration`, each with a cache directory of its own
    /// (as separate machines would have), all stopped and removed afterwards.
    private func withServers<T: Sendable>(_ count: Int, _ configuration: ServerConfiguration,
                                          _ body: @escaping @Sendable ([ServerHarness]) async throws -> T) async throws -> T {
        if count == 0 { return try await body([]) }
        let sandbox = DiskCacheSandbox()
        defer { sandbox.remove() }
        var own = configuration
        own.cacheDirectory = sandbox.root
        return try await withImageServer(own) { first in
            try await withServers(count - 1, configuration) { rest in try await body([first] + rest) }
        }
    }

    private func shared(_ server: ServerHarness) -> SharedTier { server.server.pipeline.shared! }

    @Test func aBurstForOneNewSourceOverThreeInstancesReachesTheOriginOnce() async throws {
        try await withRedisServer { redis in
            try await withTestOrigin { origin in
                let gate = TestGate()
                var route = TestOriginRoute.data(photo, contentType: "image/jpeg")
                route.mode = .gated(0, gate)
                origin.setRoute("/burst.jpg", route)
                try await withServers(3, configuration(redis)) { servers in
                    // One source lookup per instance (identical requests in one instance share it):
                    // one takes the lease on the source's record (and then on its bytes), two wait
                    // for the record. The origin answers once all three were asked for; then one
                    // instance takes the result's lease.
                    let asked = Watched<[Int: Int]>([:])
                    for (index, server) in servers.enumerated() {
                        shared(server).client.observeStatistics { statistics in
                            asked.update { $0[index] = statistics.leasesTaken + statistics.leasesWaited }
                        }
                    }
                    let path = "/insecure/rs:fit:100:100/plain/http://127.0.0.1:\(origin.port)/burst.jpg@png"
                    let replies = try await withThrowingTaskGroup(of: ServerReply.self) { group in
                        for index in 0..<50 {
                            group.addTask { try await servers[index % 3].get(path) }
                        }
                        await asked.wait("three instances to ask for the source record's lease") { $0.values.reduce(0, +) >= 3 }
                        gate.open()
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(replies.count == 50)
                    #expect(replies.allSatisfy { $0.status == 200 })
                    #expect(Set(replies.map(\.body)).count == 1, "every instance served the same bytes")
                    #expect(origin.requestCount("/burst.jpg") <= 2)
                    #expect(origin.requestCount("/burst.jpg") == 1)
                    let statistics = servers.map { shared($0).client.statistics }
                    #expect(statistics.map(\.leasesTaken).reduce(0, +) == 3, "the source record's, the source's and the result's")
                    // The two waits for the source end with it; the result is waited for or found.
                    #expect(statistics.map(\.leaseWaitHits).reduce(0, +) >= 2)
                }
            }
        }
    }

    @Test func urlsFetchedThroughOneInstanceCostTheOthersNoOriginRequest() async throws {
        try await withRedisServer { redis in
            try await withTestOrigin { origin in
                for name in ["a", "b", "c"] { origin.setRoute("/\(name).jpg", .data(photo, contentType: "image/jpeg")) }
                let paths = ["a", "b", "c"].flatMap { name in
                    ["/insecure/w:80/plain/http://127.0.0.1:\(origin.port)/\(name).jpg@png",
                     "/insecure/rs:fill:40:40/plain/http://127.0.0.1:\(origin.port)/\(name).jpg@webp"]
                }
                try await withServers(3, configuration(redis)) { servers in
                    var bodies: [String: Data] = [:]
                    for path in paths {
                        let reply = try await servers[0].get(path)
                        #expect(reply.status == 200)
                        bodies[path] = reply.body
                    }
                    #expect(origin.stats.requests.count == 3)
                    await shared(servers[0]).client.flush()
                    for server in servers.dropFirst() {
                        for path in paths {
                            let reply = try await server.get(path)
                            #expect(reply.status == 200)
                            #expect(reply.body == bodies[path])
                        }
                        #expect(server.server.metrics.resultsByTier["shared"] == paths.count)
                        #expect(server.server.metrics.resultsByTier["made"] == 0)
                    }
                    #expect(origin.stats.requests.count == 3, "B and C made nothing and fetched nothing")
                    // A result from Redis is kept locally: asked again, B answers from memory.
                    _ = try await servers[1].get(paths[0])
                    #expect(servers[1].server.metrics.resultsByTier["memory"] == 1)
                }
            }
        }
    }

    @Test func aSourceInRedisServesANewResultOnAnotherInstance() async throws {
        try await withRedisServer { redis in
            try await withTestOrigin { origin in
                origin.setRoute("/s.jpg", .data(photo, contentType: "image/jpeg"))
                try await withServers(2, configuration(redis)) { servers in
                    let source = "http://127.0.0.1:\(origin.port)/s.jpg"
                    #expect(try await servers[0].get("/insecure/w:50/plain/\(source)@png").status == 200)
                    await shared(servers[0]).client.flush()
                    // A different result of the same source: B makes it from the source bytes in Redis.
                    let reply = try await servers[1].get("/insecure/w:70/plain/\(source)@png")
                    #expect(reply.status == 200)
                    let width = try servers[1].decode(reply).pixelSize.width
                    #expect(width == 70)
                    #expect(origin.requestCount("/s.jpg") == 1)
                    #expect(shared(servers[1]).client.statistics.hits >= 1)
                }
            }
        }
    }

    @Test func twoNewResultsOfOneNewSourceOnTwoInstancesDownloadItOnce() async throws {
        try await withRedisServer { redis in
            try await withTestOrigin { origin in
                let gate = TestGate()
                var route = TestOriginRoute.data(photo, contentType: "image/jpeg")
                route.mode = .gated(0, gate)
                origin.setRoute("/two.jpg", route)
                try await withServers(2, configuration(redis)) { servers in
                    // One instance takes the lease on the source's record, the other waits for it.
                    let asked = Watched<[Int: Int]>([:])
                    for (index, server) in servers.enumerated() {
                        shared(server).client.observeStatistics { statistics in
                            asked.update { $0[index] = statistics.leasesTaken + statistics.leasesWaited }
                        }
                    }
                    let source = "http://127.0.0.1:\(origin.port)/two.jpg"
                    async let first = servers[0].get("/insecure/w:60/plain/\(source)@png")
                    async let second = servers[1].get("/insecure/w:90/plain/\(source)@png")
                    await asked.wait("the source to be leased and waited for") { $0.values.reduce(0, +) >= 2 }
                    gate.open()
                    let (a, b) = try await (first, second)
                    #expect(try servers[0].decode(a).pixelSize.width == 60)
                    #expect(try servers[1].decode(b).pixelSize.width == 90)
                    #expect(origin.requestCount("/two.jpg") == 1)
                }
            }
        }
    }

    @Test func redisDownCostsNoFailedRequestAndHealthSaysSo() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/d.jpg", .data(photo, contentType: "image/jpeg"))
            let port = try RedisTestServer.freeLoopbackPort()
            let configuration = loopbackServerConfiguration {
                $0.sharedCache = RedisConfiguration(host: "127.0.0.1", port: port)
            }
            try await withImageServer(configuration) { server in
                for width in [10, 20, 30, 40] {
                    let reply = try await server.get("/insecure/w:\(width)/plain/http://127.0.0.1:\(origin.port)/d.jpg@png")
                    #expect(reply.status == 200)
                }
                let health = try await server.get("/health")
                let object = try #require(try JSONSerialization.jsonObject(with: health.body) as? [String: Any])
                let tier = try #require(object["shared_cache"] as? [String: Any])
                #expect(tier["breaker"] as? String == "open")
                #expect((tier["errors"] as? Int ?? 0) >= 2)
                #expect(tier["address"] as? String == "redis://127.0.0.1:\(port)/0")
                let byTier = try #require(object["results_by_tier"] as? [String: Int])
                #expect(byTier["made"] == 4)
            }
        }
    }
}
