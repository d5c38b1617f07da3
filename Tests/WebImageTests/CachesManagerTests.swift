import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Two image caches behind a ``CachesManager``: cache1 (lowest priority) and cache2 (highest).
struct TwoCaches {
    let first = ImageCacheHarness(namespace: "cache1")
    let second = ImageCacheHarness(namespace: "cache2")
    let manager: CachesManager

    init() {
        manager = CachesManager(caches: [first.cache])
        manager.addCache(second.cache)
    }

    func drain() {
        first.drain()
        second.drain()
    }

    func remove() {
        first.remove()
        second.remove()
    }
}

@Suite("CachesManager policies")
struct CachesManagerTests {
    let key = "http://example.com/managed.png"

    @Test func defaultsAreSDWebImages() {
        let manager = CachesManager()
        #expect(manager.queryPolicy == .serial)
        #expect(manager.storePolicy == .highestOnly)
        #expect(manager.removePolicy == .concurrent)
        #expect(manager.containsPolicy == .serial)
        #expect(manager.clearPolicy == .concurrent)
        #expect(CachesManager.shared.caches.count == 1)
        #expect(CachesManager.shared.caches.first === ImageCache.shared)
    }

    /// cache1 holds a JPEG-made image in memory only; cache2 holds PNG bytes on disk only.
    func prepareContains(_ caches: TwoCaches) throws {
        caches.first.cache.storeImageToMemory(ImageCacheFixtures.opaque(), forKey: key)
        try caches.second.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
    }

    @Test func serialContainsAsksTheHighestFirst() async throws {
        let caches = TwoCaches()
        defer { caches.remove() }
        try prepareContains(caches)
        caches.manager.containsPolicy = .serial
        caches.manager.clearPolicy = .concurrent  // SDWebImage would (wrongly) follow this one
        #expect(await caches.manager.containsImage(forKey: key) == .disk)
    }

    @Test func concurrentContainsTakesTheFastMemoryHit() async throws {
        let caches = TwoCaches()
        defer { caches.remove() }
        try prepareContains(caches)
        caches.manager.containsPolicy = .concurrent
        caches.manager.clearPolicy = .serial
        // Hold cache2's disk check so the race SDWebImage's test relies on has a fixed winner.
        let gate = caches.second.blockIO()
        let found = await caches.manager.containsImage(forKey: key)
        gate.open()
        #expect(found == .memory)
    }

    @Test func lowestAndHighestOnlyStoreTargets() async throws {
        let caches = TwoCaches()
        defer { caches.remove() }
        let image = ImageCacheFixtures.opaque()
        caches.manager.storePolicy = .lowestOnly
        try await caches.manager.storeImage(image, forKey: "low")
        caches.manager.storePolicy = .highestOnly
        try await caches.manager.storeImage(image, forKey: "high")
        #expect(caches.first.cache.imageFromMemoryCache(forKey: "low") === image)
        #expect(caches.first.cache.diskImageDataExists(forKey: "low"))
        #expect(caches.second.cache.imageFromCache(forKey: "low") == nil)
        #expect(caches.second.cache.imageFromMemoryCache(forKey: "high") === image)
        #expect(caches.first.cache.imageFromCache(forKey: "high") == nil)
        let missing = await caches.manager.queryImage(forKey: "missing")
        #expect(missing.image == nil)
        #expect(missing.cacheType == ImageCacheType.none)
    }

    @Test func concurrentAndSerialStoreReachEveryCache() async throws {
        for policy in [CachesManager.Policy.concurrent, .serial] {
            let caches = TwoCaches()
            defer { caches.remove() }
            caches.manager.storePolicy = policy
            try await caches.manager.storeImage(ImageCacheFixtures.opaque(), forKey: key)
            #expect(caches.first.cache.diskImageDataExists(forKey: key))
            #expect(caches.second.cache.diskImageDataExists(forKey: key))
        }
    }

    @Test func serialQueryFallsThroughToLowerCaches() async throws {
        let caches = TwoCaches()
        defer { caches.remove() }
        let image = ImageCacheFixtures.opaque()
        caches.first.cache.storeImageToMemory(image, forKey: key)
        let result = await caches.manager.queryImage(forKey: key)
        #expect(result.image === image)
        #expect(result.cacheType == .memory)
    }

    @Test func serialQueryStopsAtTheHighestHit() async throws {
        let caches = TwoCaches()
        defer { caches.remove() }
        let low = ImageCacheFixtures.opaque()
        let high = ImageCacheFixtures.translucent()
        caches.first.cache.storeImageToMemory(low, forKey: key)
        caches.second.cache.storeImageToMemory(high, forKey: key)
        #expect(await caches.manager.queryImage(forKey: key).image === high)
        caches.manager.queryPolicy = .lowestOnly
        #expect(await caches.manager.queryImage(forKey: key).image === low)
    }

    @Test func concurrentQueryFirstImageWinsAndMissesReportNone() async throws {
        let caches = TwoCaches()
        defer { caches.remove() }
        caches.manager.queryPolicy = .concurrent
        let image = ImageCacheFixtures.opaque()
        try caches.second.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        caches.first.cache.storeImageToMemory(image, forKey: key)
        let gate = caches.second.blockIO()
        let hit = await caches.manager.queryImage(forKey: key)
        gate.open()
        #expect(hit.image === image)  // the memory answer comes first
        let miss = await caches.manager.queryImage(forKey: "missing")
        #expect(miss.image == nil)
        #expect(miss.cacheType == ImageCacheType.none)
    }

    @Test func queryWithStoreTypeDiskDoesNotPromote() async throws {
        let caches = TwoCaches()
        defer { caches.remove() }
        try caches.second.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        var context = WebImageContext()
        context.storeCacheType = .disk
        let result = await caches.manager.queryImage(forKey: key, context: context)
        #expect(result.image != nil)
        #expect(result.cacheType == .disk)
        #expect(caches.second.cache.imageFromMemoryCache(forKey: key) == nil)
    }

    @Test func removeAndClearReachEveryCache() async throws {
        let caches = TwoCaches()
        defer { caches.remove() }
        for cache in [caches.first.cache, caches.second.cache] {
            try await cache.storeImage(ImageCacheFixtures.opaque(), forKey: key)
            try await cache.storeImage(ImageCacheFixtures.opaque(), forKey: "other")
        }
        await caches.manager.removeImage(forKey: key, cacheType: .disk)
        for cache in [caches.first.cache, caches.second.cache] {
            #expect(cache.imageFromMemoryCache(forKey: key) != nil)
            #expect(!cache.diskImageDataExists(forKey: key))
        }
        await caches.manager.clear(cacheType: .all)
        for cache in [caches.first.cache, caches.second.cache] {
            #expect(cache.imageFromCache(forKey: "other") == nil)
            #expect(cache.totalDiskCount == 0)
        }
    }

    @Test func cancellingAManagedQueryCallsBackOnceAndCancelsTheChildren() throws {
        let caches = TwoCaches()
        defer { caches.remove() }
        try caches.first.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        for policy in [CachesManager.Policy.serial, .concurrent] {
            caches.manager.queryPolicy = policy
            let gates = [caches.first.blockIO(), caches.second.blockIO()]
            let calls = CallRecorder<ImageCacheQueryResult>()
            let callbacks = DispatchQueue(label: "test.manager.callbacks")
            let context = WebImageContext(callbackQueue: CallbackQueue(callbacks))
            let operation = caches.manager.queryImage(forKey: key, options: [], context: context,
                                                      cacheType: .all) { calls.record($0) }
            #expect(calls.count == 0)
            callbacks.sync {
                operation?.cancel()
                #expect(calls.count == 1)
            }
            gates.forEach { $0.open() }
            caches.drain()
            callbacks.sync {}
            #expect(calls.count == 1)
            #expect(calls.last?.image == nil)
            #expect(caches.first.cache.imageFromMemoryCache(forKey: key) == nil, "the child did no work")
        }
    }
}
