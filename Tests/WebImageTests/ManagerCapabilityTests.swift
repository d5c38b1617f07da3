import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// What the manager asks of a cache beyond SDWebImage's protocol goes through `ImageCaching`, so
/// a `CachesManager` (or any conforming cache) gets `refreshCached` revalidation and the memory
/// fast path; decode options come from the filtered key on every path.
@Suite("Image manager: cache capabilities through the protocol")
struct ManagerCapabilityTests {
    /// Every event of one load, collected until the stream ends (the load's last event).
    private func events(_ manager: ImageManager, _ url: URL, options: WebImageOptions = [],
                        context: WebImageContext = .none) async throws -> [ImageManagerResult] {
        var images: [ImageManagerResult] = []
        for try await event in manager.imageEvents(for: url, options: options, context: context) {
            if case .image(let result) = event { images.append(result) }
        }
        return images
    }

    @Test func refreshThroughACachesManagerSendsStoredValidatorsAnd304EndsSilently() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/cm.png", LoadScript.png(10, 10).validated(etag: "\"v1\""))
            let caches = CachesManager(caches: [h.cache])
            let manager = ImageManager(cache: caches, loader: h.loader)
            let first = try await events(manager, url, options: .waitStoreCache)
            #expect(first.count == 1 && first.first?.cacheType == ImageCacheType.none)
            h.caches.drain()
            #expect(caches.validators(forKey: url.absoluteString)?.etag == "\"v1\"")

            let refreshed = try await events(manager, url, options: .refreshCached)
            // The loader logs its final result after the manager's completion returned, which may be
            // after the load's events ended.
            await h.loader.waitForFinal(url, count: 2)
            // The cached image, then nothing: the 304 ends the load without a second result.
            #expect(refreshed.count == 1)
            #expect(refreshed.first?.cacheType == .memory)
            #expect(h.loader.requestCount(url) == 2)
            #expect(h.loader.requests(for: url).last?.validators?.etag == "\"v1\"")
            #expect(h.loader.finals(for: url).last?.error?.code == .cacheNotModified)
        }
    }

    @Test func refreshThroughACachesManagerDeliversAChangedImageAndStoresItsValidators() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/cm2.png", LoadScript.png(10, 10).validated(etag: "\"v1\""))
            let caches = CachesManager(caches: [h.cache])
            let manager = ImageManager(cache: caches, loader: h.loader)
            _ = try await events(manager, url, options: .waitStoreCache)
            h.caches.drain()

            h.serve("/cm2.png", LoadScript.png(20, 20).validated(etag: "\"v2\""))
            let refreshed = try await events(manager, url, options: [.refreshCached, .waitStoreCache])
            #expect(refreshed.map { $0.image?.pixelSize } == [PixelSize(width: 10, height: 10), PixelSize(width: 20, height: 20)])
            #expect(refreshed.last?.cacheType == ImageCacheType.none)
            h.caches.drain()
            #expect(caches.validators(forKey: url.absoluteString)?.etag == "\"v2\"")
            #expect(caches.storedData(forKey: url.absoluteString) == Data(ManagerFixtures.png(20, 20)))
        }
    }

    @Test func sameBytesWithoutValidatorsThroughACachesManagerEndSilently() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/same.png", .png(8, 8))
            let manager = ImageManager(cache: CachesManager(caches: [h.cache]), loader: h.loader)
            _ = try await events(manager, url, options: .waitStoreCache)
            h.caches.drain()
            let refreshed = try await events(manager, url, options: .refreshCached)
            #expect(refreshed.count == 1)
            #expect(h.loader.requestCount(url) == 2)
        }
    }

    @Test func aCachesManagerAnswersMemoryHitsByItsQueryPolicy() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cap-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let low = ImageCache(namespace: "low", directory: root)
        let high = ImageCache(namespace: "high", directory: root)
        let image = Image(bitmap: TestBitmaps.gradient(width: 4, height: 4))
        low.memoryCache.set(image, forKey: "k")
        let caches = CachesManager(caches: [low, high])
        // Serial asks the highest first: a miss there means no synchronous answer.
        #expect(caches.memoryImage(forKey: "k", options: []) == nil)
        caches.queryPolicy = .lowestOnly
        #expect(caches.memoryImage(forKey: "k", options: []) === image)
        caches.queryPolicy = .concurrent
        #expect(caches.memoryImage(forKey: "k", options: []) == nil)
        high.memoryCache.set(image, forKey: "k")
        caches.queryPolicy = .serial
        #expect(caches.memoryImage(forKey: "k", options: []) === image)
    }

    @Test func aCacheWithoutTheCapabilitiesStillLoadsThroughTheQuery() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/plain.png", .png(6, 6))
            let cache = MinimalCache(inner: h.cache)
            let manager = ImageManager(cache: cache, loader: h.loader)
            _ = try await events(manager, url, options: .waitStoreCache)
            let second = try await events(manager, url)
            // No synchronous memory answer: the hit comes from the query.
            #expect(second.count == 1 && second.first?.cacheType == .memory)
            #expect(h.loader.requestCount(url) == 1)
        }
    }

    @Test func aFilteredKeyDecidesTheScaleFromTheNetworkAndFromDisk() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/avatar", .png(12, 12))
            var context = WebImageContext()
            context.cacheKeyFilter = CacheKeyFilter { url in url.absoluteString + "@2x.png" }
            let downloaded = try await events(h.manager, url, options: .waitStoreCache, context: context)
            #expect(downloaded.first?.image?.scale == 2)
            h.caches.drain()
            let (fresh, _) = h.freshManager()
            let fromDisk = try await events(fresh, url, context: context)
            #expect(fromDisk.first?.cacheType == .disk)
            #expect(fromDisk.first?.image?.scale == 2)
        }
    }
}

/// A cache that implements only SDWebImage's protocol (no memory fast path, no stored bytes or
/// validators), forwarding to an `ImageCache`.
private final class MinimalCache: ForwardingCache {
    let inner: ImageCache
    init(inner: ImageCache) { self.inner = inner }
}
