import Foundation
import Testing
@testable import WebImage
@testable import WebImageRedis

@Suite("Redis as a cache tier in a CachesManager",
       .enabled(if: RedisTestServer.isInstalled, "redis-server is not installed (scripts/install-deps installs it)"))
struct RedisCacheTests {
    /// memory → disk (one instance's `ImageCache`) → Redis (shared), as a manager sees it.
    private func tiers(_ local: ImageCacheHarness, _ shared: RedisCache) -> CachesManager {
        let caches = CachesManager(caches: [shared, local.cache])
        caches.storePolicy = .concurrent
        caches.fillsHigherPriorityCaches = true
        return caches
    }

    @Test func aHitInRedisFillsTheLocalTiers() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let shared = RedisCache(client: client, namespace: "images", ttl: 60)
            let a = ImageCacheHarness(), b = ImageCacheHarness()
            defer { a.remove(); b.remove() }
            let data = try ImageCacheFixtures.pngData(width: 20, height: 10)
            let image = try CodersManager.shared.decode(data, options: .default)

            try await tiers(a, shared).storeImage(image, data: data, forKey: "k", cacheType: .all)
            await shared.store.flush(forKey: "k")
            #expect(await shared.store.data(forKey: "k") == data)

            let caches = tiers(b, shared)
            let first = await caches.queryImage(forKey: "k", cacheType: .all)
            #expect(first.image?.pixelSize == PixelSize(width: 20, height: 10),
                    "Redis: \(client.statistics); breaker \(client.breaker.state)")
            #expect(first.cacheType == .disk)
            #expect(first.data == data)
            // The fill ran before the answer: the next query is a memory hit, and the disk has the bytes.
            b.drain()
            #expect(b.cache.imageFromMemoryCache(forKey: "k") != nil)
            #expect(b.cache.diskImageData(forKey: "k") == data)
            let second = await caches.queryImage(forKey: "k", cacheType: .all)
            #expect(second.cacheType == .memory)
            #expect(await caches.containsImage(forKey: "k", cacheType: .all) != .none)
        }
    }

    @Test func anUndecodableValueIsAMiss() async throws {
        try await withRedisServer { redis in
            let client = RedisClient(configuration: redis.configuration())
            defer { client.close() }
            let shared = RedisCache(client: client, namespace: "images")
            let done = Watched(false)
            shared.store.store(Data("no image".utf8), forKey: "bad") { _ in done.update { $0 = true } }
            await done.wait("the write") { $0 }
            let result = await shared.queryImage(forKey: "bad", cacheType: .all)
            #expect(result.image == nil)
            #expect(client.statistics.corrupt == 1)
        }
    }

    @Test func twoManagersShareOneDownload() async throws {
        try await withRedisServer { redis in
            try await withOriginAndDownloader { origin, downloader in
                let client = RedisClient(configuration: redis.configuration())
                defer { client.close() }
                let shared = RedisCache(client: client, namespace: "images")
                let a = ImageCacheHarness(), b = ImageCacheHarness()
                defer { a.remove(); b.remove() }
                let png = try ImageCacheFixtures.pngData(width: 30, height: 30)
                origin.setRoute("/shared.png", TestOriginRoute(contentType: "image/png", body: [UInt8](png)))
                let url = origin.url("/shared.png")

                let first = try await ImageManager(cache: tiers(a, shared), loader: downloader).image(for: url)
                #expect(first.cacheType == .none)
                await shared.store.flush(forKey: url.absoluteString)
                let managerB = ImageManager(cache: tiers(b, shared), loader: downloader)
                let second = try await managerB.image(for: url)
                #expect(second.image?.pixelSize == PixelSize(width: 30, height: 30))
                #expect(second.cacheType == .disk)
                #expect(origin.requestCount("/shared.png") == 1)
                let third = try await managerB.image(for: url)
                #expect(third.cacheType == .memory)
                #expect(origin.requestCount("/shared.png") == 1)
            }
        }
    }

    @Test func redisDownIsOnlyAMiss() async throws {
        let port = try RedisTestServer.freeLoopbackPort()
        var configuration = RedisConfiguration(host: "127.0.0.1", port: port)
        configuration.connectTimeoutMilliseconds = 2000
        let client = RedisClient(configuration: configuration)
        defer { client.close() }
        let shared = RedisCache(client: client, namespace: "images")
        let local = ImageCacheHarness()
        defer { local.remove() }
        let caches = tiers(local, shared)
        let data = try ImageCacheFixtures.pngData(width: 4, height: 4)
        try await caches.storeImage(nil, data: data, forKey: "k", cacheType: .all)
        #expect(await caches.queryImage(forKey: "missing", cacheType: .all).image == nil)
        #expect(await caches.queryImage(forKey: "k", cacheType: .all).image != nil)
    }
}
