import Foundation
import Testing
@testable import WebImage
@testable import WebImageRedis
@testable import WebImageServer

/// Source freshness across instances sharing Redis: a result from the shared tier is as fresh as
/// the shared record of its source, is served once more past it and starts the revalidation; the
/// change one instance finds reaches every instance and tier; a result never promises more than
/// the record of the version it was made from.
@Suite("Server: source freshness across instances",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct ServerSharedFreshnessTests {
    let wide: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 320, height: 240)))
    let narrow: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 160, height: 120)))
    static let modified = "Wed, 21 Oct 2015 07:28:00 GMT"
    static let remodified = "Thu, 22 Oct 2015 07:28:00 GMT"

    private func configuration(_ clock: Watched<Int64>, _ redis: RedisTestServer,
                               _ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        freshnessServerConfiguration(clock) {
            $0.sharedCache = redis.configuration()
            $0.sharedCacheTTL = 300
            adjust(&$0)
        }
    }

    private func version(_ bytes: [UInt8], etag: String, lastModified: String) -> TestOriginRoute {
        var route = TestOriginRoute.data(bytes, contentType: "image/jpeg")
        route.etag = etag
        route.lastModified = lastModified
        return route
    }

    private func width(_ reply: ServerReply, _ server: ServerHarness) throws -> Int {
        try server.decode(reply).pixelSize.width
    }

    @Test func aSharedTierHitOfAStaleSourceIsServedOnceMoreAndTheChangeItFindsReachesEveryInstance() async throws {
        try await withRedisServer { redis in
            try await withTestOrigin { origin in
                origin.setRoute("/s.jpg", version(wide, etag: "\"a\"", lastModified: Self.modified))
                let clock = Watched<Int64>(5_000_000)
                let sandboxes = [DiskCacheSandbox(), DiskCacheSandbox(), DiskCacheSandbox()]
                defer { for sandbox in sandboxes { sandbox.remove() } }
                let settings = sandboxes.map { sandbox in configuration(clock, redis) { $0.cacheDirectory = sandbox.root } }
                let source = "http://127.0.0.1:\(origin.port)/s.jpg"
                let path = "/insecure/rs:fit:400:400/plain/\(source)@png"
                try await withImageServer(settings[0]) { a in
                    try await withImageServer(settings[1]) { b in
                        let made = try await a.get(path)
                        #expect(try width(made, a) == 320)
                        await a.server.pipeline.shared!.client.flush()
                        let oldKey = try a.resultKey(path, source: source)
                        #expect(await a.server.pipeline.shared!.results.contains(key: oldKey))

                        // B has neither the source nor the result: both come from the shared tier,
                        // as fresh as A's record of the source, not as a new fetch would be.
                        clock.update { $0 += 30 }
                        let shared = try await b.get(path)
                        #expect(shared.body == made.body)
                        #expect(b.server.metrics.resultsByTier["shared"] == 1)
                        #expect(shared.header("ETag") == made.header("ETag"))
                        #expect(shared.header("Cache-Control") == "public, max-age=70")
                        #expect(shared.header("Last-Modified") == Self.modified)
                        #expect(b.server.pipeline.storedResults?.containsData(forKey: oldKey) == true, "kept on B's disk")

                        origin.setRoute("/s.jpg", version(narrow, etag: "\"b\"", lastModified: Self.remodified))
                        let outcomes = Watched<[RevalidationOutcome]>([])
                        b.server.pipeline.states.observeRevalidations { _, outcome in outcomes.update { $0.append(outcome) } }
                        clock.update { $0 += 71 }
                        let stale = try await b.get(path)
                        #expect(stale.body == made.body, "served once more")
                        #expect(stale.header("Cache-Control") == "public, max-age=10")
                        #expect(await outcomes.wait("B's revalidation") { $0 == [.changed] })
                        #expect(origin.requests("/s.jpg").last?.header("If-None-Match") == "\"a\"")
                        // The change drops the old result from the shared tier and B's disk.
                        #expect(await !b.server.pipeline.shared!.results.contains(key: oldKey), "the old result left Redis")
                        #expect(b.server.pipeline.storedResults?.containsData(forKey: oldKey) == false, "and B's disk")

                        let changedOnB = try await b.get(path)
                        #expect(try width(changedOnB, b) == 160)
                        #expect(changedOnB.header("Last-Modified") == Self.remodified)
                        #expect(changedOnB.header("Cache-Control") == "public, max-age=100")
                        await b.server.pipeline.shared!.client.flush()

                        // A still holds the old result in memory and on disk; at its next check of
                        // the shared record it drops it and takes B's new result from Redis.
                        #expect(a.server.pipeline.results?.keys(of: oldKey).isEmpty == false)
                        #expect(a.server.pipeline.storedResults?.containsData(forKey: oldKey) == true)
                        clock.update { $0 += 1 }
                        let changedOnA = try await a.get(path)
                        #expect(try width(changedOnA, a) == 160)
                        #expect(changedOnA.header("ETag") == changedOnB.header("ETag"))
                        #expect(changedOnA.header("Last-Modified") == Self.remodified)
                        #expect(a.server.metrics.resultsByTier["shared"] == 1)
                        #expect(a.server.pipeline.results?.keys(of: oldKey) == [], "the old result left A's memory")
                        #expect(a.server.pipeline.storedResults?.containsData(forKey: oldKey) == false, "and A's disk")
                    }
                }
                // A third instance with an empty disk finds only the new version in Redis.
                try await withImageServer(settings[2]) { c in
                    let reply = try await c.get(path)
                    #expect(try width(reply, c) == 160)
                    #expect(c.server.metrics.resultsByTier["shared"] == 1)
                }
                #expect(origin.requestCount("/s.jpg") == 2, "A's first fetch and B's revalidation")
            }
        }
    }

    @Test func twoInstancesThatFindASourceStaleAtOnceAskItsOriginOnce() async throws {
        try await withRedisServer { redis in
            try await withTestOrigin { origin in
                origin.setRoute("/once.jpg", version(wide, etag: "\"a\"", lastModified: Self.modified))
                let clock = Watched<Int64>(7_000_000)
                let sandboxes = [DiskCacheSandbox(), DiskCacheSandbox()]
                defer { for sandbox in sandboxes { sandbox.remove() } }
                let settings = sandboxes.map { sandbox in configuration(clock, redis) { $0.cacheDirectory = sandbox.root } }
                let path = "/insecure/rs:fit:400:400/plain/http://127.0.0.1:\(origin.port)/once.jpg@png"
                try await withImageServer(settings[0]) { a in
                    try await withImageServer(settings[1]) { b in
                        let made = try await a.get(path)
                        await a.server.pipeline.shared!.client.flush()
                        #expect(try await b.get(path).body == made.body)
                        let (fromA, fromB) = (Watched<[RevalidationOutcome]>([]), Watched<[RevalidationOutcome]>([]))
                        a.server.pipeline.states.observeRevalidations { _, outcome in fromA.update { $0.append(outcome) } }
                        b.server.pipeline.states.observeRevalidations { _, outcome in fromB.update { $0.append(outcome) } }

                        // The new image is held at the origin until the gate opens: A's
                        // revalidation stays in flight while B finds the source stale too.
                        let gate = TestGate()
                        var changed = version(narrow, etag: "\"b\"", lastModified: Self.remodified)
                        changed.mode = .gated(0, gate)
                        origin.setRoute("/once.jpg", changed)
                        clock.update { $0 += 101 }
                        #expect(try await a.get(path).body == made.body)
                        #expect(await origin.waitForRequest("/once.jpg", count: 2))
                        #expect(try await b.get(path).body == made.body)
                        #expect(await fromB.wait("B to find A revalidating") { $0 == [.elsewhere] })
                        // Nor does B try again before its next check of the shared record.
                        #expect(try await b.get(path).body == made.body)
                        #expect(b.server.pipeline.states.revalidationsInFlight == 0)
                        #expect(fromB.value == [.elsewhere])

                        gate.open()
                        #expect(await fromA.wait("A's revalidation") { $0 == [.changed] })
                        clock.update { $0 += 1 }
                        let changedOnB = try await b.get(path)
                        #expect(try width(changedOnB, b) == 160, "B takes the change A found")
                        #expect(origin.requestCount("/once.jpg") == 2, "A's first fetch and A's revalidation")
                        #expect(origin.requests("/once.jpg").last?.header("If-None-Match") == "\"a\"")
                    }
                }
            }
        }
    }

    /// The key `server`'s memory holds the result of `path` under, made from the version of
    /// `source` it knows now (the source's identity last).
    @Test func aResultMadeFromAnotherVersionThanItsRecordPromisesNoMoreThanThatVersionsFreshness() async throws {
        let sandbox = DiskCacheSandbox()
        defer { sandbox.remove() }
        try await withRedisServer { redis in
            try await withTestOrigin { origin in
                origin.setRoute("/v.jpg", .data(wide, contentType: "image/jpeg"))
                let clock = Watched<Int64>(6_000_000)
                // The shared record is checked on every request.
                let settings = configuration(clock, redis) {
                    $0.cacheDirectory = sandbox.root
                    $0.sharedSourceCheckInterval = 0
                }
                try await withImageServer(settings) { server in
                    let source = "http://127.0.0.1:\(origin.port)/v.jpg"
                    #expect(try await server.get("/insecure/w:50/plain/\(source)@png").status == 200)
                    // The origin's image changed, and the cached bytes are the new ones while the
                    // record still names the old (as when another instance's download replaced them).
                    origin.setRoute("/v.jpg", .data(narrow, contentType: "image/jpeg"))
                    try server.server.pipeline.sourceCache.storeImageDataToDisk(Data(narrow), forKey: source)

                    let other = try await server.get("/insecure/rs:fit:400:400/plain/\(source)@png")
                    #expect(try width(other, server) == 160, "made from the new version, fetched again")
                    #expect(other.header("Cache-Control") == "public, max-age=100", "the new version's freshness")
                    #expect(origin.requestCount("/v.jpg") == 2)
                }
            }
        }
    }
}
