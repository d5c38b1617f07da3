import Foundation
import Testing
@testable import WebImage
@testable import WebImageRedis
@testable import WebImageServer

/// A request waiting for another instance's lease holds an admission like the work it stands for,
/// so a burst of new keys is bounded by `--workers` + `--max-queue` on every instance.
@Suite("Server: lease waits are admitted",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct ServerSharedAdmissionTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 160, height: 120)))

    @Test func aWaitForAnotherInstancesSourceCountsAgainstTheQueue() async throws {
        try await withRedisServer { redis in
            try await withTestOrigin { origin in
                origin.setRoute("/held.jpg", .data(photo, contentType: "image/jpeg"))
                origin.setRoute("/other.jpg", .data(photo, contentType: "image/jpeg"))
                let sandbox = DiskCacheSandbox()
                defer { sandbox.remove() }
                let configuration = loopbackServerConfiguration {
                    $0.cacheDirectory = sandbox.root
                    $0.sharedCache = redis.configuration()
                    $0.sharedCacheTTL = 300
                    $0.sharedCacheLeaseWait = 600
                    $0.workers = 1
                    $0.maxQueue = 0
                }
                try await withImageServer(configuration) { server in
                    // Another instance is downloading /held.jpg: it holds the source's lease.
                    let held = "http://127.0.0.1:\(origin.port)/held.jpg"
                    let elsewhere = RedisClient(configuration: redis.configuration())
                    defer { elsewhere.close() }
                    let sources = RedisStore(client: elsewhere, namespace: "sources")
                    guard case .lead(let lease) = await sources.valueOrLease(forKey: held, leaseMilliseconds: 600_000) else {
                        Issue.record("the other instance did not get the source's lease")
                        return
                    }
                    let tier = try #require(server.server.pipeline.shared)
                    let waited = Watched(0)
                    tier.client.observeStatistics { statistics in waited.update { $0 = statistics.leasesWaited } }

                    async let first = server.get("/insecure/w:40/plain/\(held)@png")
                    await waited.wait("the request to wait for the other instance's source") { $0 >= 1 }
                    // The only admission is taken by that wait: a new result cannot start.
                    let refused = try await server.get("/insecure/w:40/plain/http://127.0.0.1:\(origin.port)/other.jpg@png")
                    #expect(refused.status == 429)
                    #expect(origin.requestCount("/other.jpg") == 0)

                    // The other instance gives up without the bytes: the waiter fetches them itself.
                    sources.release(lease)
                    let made = try await first
                    #expect(made.status == 200)
                    #expect(try server.decode(made).pixelSize.width == 40)
                    #expect(tier.client.breaker.state == .closed)
                }
            }
        }
    }
}
