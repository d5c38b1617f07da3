import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A cache of the caller's own (SDWebImage's test58): a locked dictionary, memory only.
final class DictionaryImageCache: ImageCaching {
    private let images = Mutex<[String: Image]>([:])

    func queryImage(forKey key: String?, options: WebImageOptions, context: WebImageContext,
                    cacheType: ImageCacheType,
                    completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) -> (any ImageCacheOperation)? {
        let image = key.flatMap { key in images.withLock { $0[key] } }
        completion(ImageCacheQueryResult(image: image, cacheType: image == nil ? .none : .memory))
        return nil
    }

    func storeImage(_ image: Image?, data: Data?, forKey key: String?, options: WebImageOptions,
                    context: WebImageContext, cacheType: ImageCacheType,
                    completion: (@Sendable (WebImageError?) -> Void)?) {
        if let key, let image, cacheType.includesMemory { images.withLock { $0[key] = image } }
        completion?(nil)
    }

    func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        if let key { _ = images.withLock { $0.removeValue(forKey: key) } }
        completion?()
    }

    func containsImage(forKey key: String?, cacheType: ImageCacheType,
                       completion: @escaping @Sendable (ImageCacheType) -> Void) {
        let found = key.map { key in images.withLock { $0[key] != nil } } ?? false
        completion(found ? .memory : .none)
    }

    func clear(cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        images.withLock { $0 = [:] }
        completion?()
    }
}

@Suite("CachesManager edge cases")
struct CachesManagerEdgeTests {
    let key = "http://example.com/edge.png"

    @Test func noCachesCompletesEverythingOnceWithAMiss() {
        let manager = CachesManager()
        let calls = CallRecorder<String>()
        let operation = manager.queryImage(forKey: key, options: [], context: .none, cacheType: .all) {
            calls.record($0.image == nil && $0.cacheType == .none ? "query" : "bad")
        }
        #expect(operation == nil)
        manager.storeImage(ImageCacheFixtures.opaque(), data: nil, forKey: key, options: [], context: .none,
                           cacheType: .all) { calls.record($0 == nil ? "store" : "bad") }
        manager.removeImage(forKey: key, cacheType: .all) { calls.record("remove") }
        manager.containsImage(forKey: key, cacheType: .all) { calls.record($0 == .none ? "contains" : "bad") }
        manager.clear(cacheType: .all) { calls.record("clear") }
        #expect(calls.count == 5)
        #expect(calls.last == "clear")
    }

    @Test func nilKeyCompletesOnceWithAMiss() {
        let manager = CachesManager(caches: [DictionaryImageCache(), DictionaryImageCache()])
        let calls = CallRecorder<Bool>()
        manager.queryImage(forKey: nil, options: [], context: .none, cacheType: .all) { calls.record($0.image == nil) }
        manager.storeImage(ImageCacheFixtures.opaque(), data: nil, forKey: nil, options: [], context: .none,
                           cacheType: .all) { calls.record($0 == nil) }
        manager.removeImage(forKey: nil, cacheType: .all) { calls.record(true) }
        manager.containsImage(forKey: nil, cacheType: .all) { calls.record($0 == .none) }
        #expect(calls.count == 4)
        #expect(calls.last == true)
    }

    @Test func customCacheThroughTheManager() async throws {
        let custom = DictionaryImageCache()
        let manager = CachesManager(caches: [custom])
        let image = ImageCacheFixtures.opaque()
        try await manager.storeImage(image, forKey: key)
        #expect(await manager.containsImage(forKey: key) == .memory)
        let result = await manager.queryImage(forKey: key)
        #expect(result.image === image)
        #expect(result.data == nil)
        #expect(result.cacheType == .memory)
        await manager.removeImage(forKey: key)
        #expect(await manager.containsImage(forKey: key) == .none)
        try await manager.storeImage(image, forKey: key)
        await manager.clear(cacheType: .all)
        #expect(await custom.queryImage(forKey: key).image == nil)
    }

    @Test func singleImageCacheIsForwarded() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let manager = CachesManager(caches: [harness.cache])
        let image = ImageCacheFixtures.opaque()
        try await manager.storeImage(image, forKey: key)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) === image)
        #expect(harness.cache.diskImageDataExists(forKey: key))
        #expect(await manager.queryImage(forKey: key).cacheType == .memory)
        #expect(await manager.containsImage(forKey: key) == .memory)
        await manager.removeImage(forKey: key, cacheType: .disk)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) === image)
        #expect(!harness.cache.diskImageDataExists(forKey: key))
        await manager.clear(cacheType: .all)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
    }

    @Test func managingCaches() {
        let first = DictionaryImageCache()
        let second = DictionaryImageCache()
        let manager = CachesManager()
        manager.addCache(first)
        manager.addCache(second)
        #expect(manager.caches.count == 2)
        #expect(manager.targets(for: .highestOnly).first === second)
        #expect(manager.targets(for: .lowestOnly).first === first)
        #expect(manager.targets(for: .serial).first === second)
        manager.removeCache(second)
        #expect(manager.caches.count == 1)
        #expect(manager.caches.first === first)
    }

    @Test func everyPolicyCompletesExactlyOnce() async throws {
        for policy in [CachesManager.Policy.highestOnly, .lowestOnly, .concurrent, .serial] {
            let caches = TwoCaches()
            defer { caches.remove() }
            let manager = caches.manager
            manager.queryPolicy = policy
            manager.storePolicy = policy
            manager.removePolicy = policy
            manager.containsPolicy = policy
            manager.clearPolicy = policy
            let calls = CallRecorder<String>()
            await withCheckedContinuation { continuation in
                manager.storeImage(ImageCacheFixtures.opaque(), data: nil, forKey: key, options: [],
                                   context: .none, cacheType: .all) { _ in calls.record("store"); continuation.resume() }
            }
            for cacheKey in [key, "missing"] {
                _ = await manager.queryImage(forKey: cacheKey, cacheType: .disk)
                _ = await manager.containsImage(forKey: cacheKey, cacheType: .disk)
            }
            await manager.removeImage(forKey: key)
            await manager.clear(cacheType: .all)
            caches.drain()
            #expect(calls.count == 1, "policy \(policy)")
        }
    }
}
