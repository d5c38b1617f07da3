import Dispatch
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The cases of SDWebImage's `SDImageCacheTests` on our API: store, query, remove, clear, paths.
@Suite("ImageCache basics")
struct ImageCacheTests {
    let key = "http://example.com/image.png"

    @Test func sharedCacheIsOneObjectInTheDefaultNamespace() {
        #expect(ImageCache.shared === ImageCache.shared)
        #expect(ImageCache.shared.diskCachePath.hasSuffix("/webimage/default"))
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        #expect(harness.cache !== ImageCache.shared)
        #expect(harness.cache.diskCachePath == harness.sandbox.root.appendingPathComponent("test").path)
    }

    @Test func clearDiskKeepsMemory() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let image = ImageCacheFixtures.opaque()
        try await harness.cache.storeImage(image, forKey: key)
        await harness.cache.clear(cacheType: .disk)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) === image)
        #expect(!harness.cache.diskImageDataExists(forKey: key))
        #expect(harness.cache.totalDiskCount == 0)
    }

    @Test func clearMemoryKeepsDisk() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try await harness.cache.storeImage(ImageCacheFixtures.opaque(), forKey: key)
        harness.cache.clearMemory()
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
        #expect(harness.cache.diskImageDataExists(forKey: key))
    }

    @Test func storeWritesMemoryBeforeReturningAndDiskBeforeCompleting() async {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let image = ImageCacheFixtures.opaque()
        let existsInCompletion: Bool = await withCheckedContinuation { continuation in
            let cache = harness.cache
            cache.storeImage(image, data: nil, forKey: key, options: [], context: .none, cacheType: .all) { error in
                #expect(error == nil)
                continuation.resume(returning: cache.diskImageDataExists(forKey: self.key))
            }
            #expect(cache.imageFromMemoryCache(forKey: key) === image)
        }
        #expect(existsInCompletion)
    }

    @Test func memoryOnlyStoreCompletesSynchronouslyAndSkipsDisk() {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let image = ImageCacheFixtures.opaque()
        let calls = CallRecorder<Bool>()
        harness.cache.storeImage(image, forKey: key, toDisk: false) { calls.record($0 == nil) }
        #expect(calls.count == 1)
        #expect(calls.last == true)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) === image)
        harness.drain()
        #expect(!harness.cache.diskImageDataExists(forKey: key))

        harness.cache.storeImageToMemory(image, forKey: "other")
        harness.cache.clearMemory()
        #expect(harness.cache.imageFromMemoryCache(forKey: "other") == nil)
    }

    @Test func nothingToStoreCompletesAtOnce() {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let calls = CallRecorder<Bool>()
        harness.cache.storeImage(nil, data: nil, forKey: key, options: [], context: .none, cacheType: .all) { calls.record($0 == nil) }
        harness.cache.storeImage(ImageCacheFixtures.opaque(), data: nil, forKey: nil, options: [], context: .none, cacheType: .all) { calls.record($0 == nil) }
        #expect(calls.count == 2)
        #expect(harness.cache.totalDiskCount == 0)
    }

    @Test func queryReturnsTheStoredImageFromMemoryThenFromDisk() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let image = ImageCacheFixtures.opaque()
        try await harness.cache.storeImage(image, forKey: key)
        let memory = await harness.cache.queryResult(forKey: key)
        #expect(memory.image === image)
        #expect(memory.cacheType == .memory)
        #expect(memory.data == nil)

        harness.cache.clearMemory()
        let disk = await harness.cache.queryResult(forKey: key)
        #expect(disk.cacheType == .disk)
        #expect(disk.image?.pixelSize == image.pixelSize)
        #expect(disk.data.map(ImageFormat.detect) == .jpeg)
        // The disk hit was promoted: the next query answers from memory with the same object.
        let again = await harness.cache.queryResult(forKey: key)
        #expect(again.cacheType == .memory)
        #expect(again.image === disk.image)
    }

    @Test func removeFromBoth() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try await harness.cache.storeImage(ImageCacheFixtures.opaque(), forKey: key)
        await harness.cache.removeImage(forKey: key)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
        #expect(harness.cache.imageFromDiskCache(forKey: key) == nil)
    }

    @Test func removeNotFromDiskKeepsTheFile() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try await harness.cache.storeImage(ImageCacheFixtures.opaque(), forKey: key)
        let calls = CallRecorder<Int>()
        harness.cache.removeImage(forKey: key, fromDisk: false) { calls.record(1) }
        #expect(calls.count == 1)  // memory only: synchronous
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
        #expect(harness.cache.diskImageDataExists(forKey: key))
    }

    @Test func removeFromDiskOnlyKeepsMemory() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let image = ImageCacheFixtures.opaque()
        try await harness.cache.storeImage(image, forKey: key)
        await harness.cache.removeImage(forKey: key, cacheType: .disk)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) === image)
        #expect(!harness.cache.diskImageDataExists(forKey: key))
        harness.cache.removeImageFromMemory(forKey: key)
        #expect(harness.cache.imageFromCache(forKey: key) == nil)
    }

    @Test func deleteOldFilesAppliesMaxDiskAge() async throws {
        let harness = ImageCacheHarness { $0.maxDiskAge = 0 }
        defer { harness.remove() }
        try await harness.cache.storeImage(ImageCacheFixtures.opaque(), forKey: key)
        #expect(harness.cache.totalDiskCount == 1)
        await withCheckedContinuation { continuation in
            harness.cache.deleteOldFiles { continuation.resume() }
        }
        #expect(harness.cache.totalDiskCount == 0)
    }

    @Test func deleteOldFilesKeepsFreshEntries() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try await harness.cache.storeImage(ImageCacheFixtures.opaque(), forKey: key)
        await withCheckedContinuation { continuation in
            harness.cache.deleteOldFiles { continuation.resume() }
        }
        #expect(harness.cache.totalDiskCount == 1)
    }

    @Test func firstFrameOnlyMemoryHitIsANewStillImage() async {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let animated = ImageCacheFixtures.animated(format: .gif)
        harness.cache.storeImageToMemory(animated, forKey: key)
        let plain = await harness.cache.queryResult(forKey: key)
        #expect(plain.image === animated)
        #expect(plain.image?.isAnimated == true)
        #expect(plain.cacheType == .memory)
        let still = await harness.cache.queryResult(forKey: key, options: .decodeFirstFrameOnly)
        #expect(still.image !== animated)
        #expect(still.image?.isAnimated == false)
        #expect(still.image?.bitmap == animated.bitmap)
        #expect(still.cacheType == .memory)
    }

    @Test func initialSizeIsZeroAndOneStoreCountsOne() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        #expect(harness.cache.totalDiskSize == 0)
        try await harness.cache.storeImage(ImageCacheFixtures.opaque(), forKey: key)
        #expect(harness.cache.totalDiskCount == 1)
        let (count, size) = await withCheckedContinuation { continuation in
            harness.cache.calculateSize { continuation.resume(returning: ($0, $1)) }
        }
        #expect(count == 1)
        #expect(size == harness.cache.diskImageData(forKey: key)?.count)
    }

    @Test func cachePaths() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let cache = harness.cache
        #expect(cache.cachePath(forKey: nil) == nil)
        let path = try #require(cache.cachePath(forKey: key))
        #expect(path.hasPrefix(cache.diskCachePath + "/"))
        try await cache.storeImage(ImageCacheFixtures.opaque(), forKey: key)
        #expect(FileManager.default.fileExists(atPath: path))

        func ext(_ key: String) -> String? { cache.cachePath(forKey: key).map { ($0 as NSString).pathExtension } }
        #expect(ext("https://example.com/a/photo.jpg") == "jpg")
        #expect(ext("https://maps.example.com/staticmap?center=48.8,2.3&zoom=12&format=png") == "")
        #expect(ext("https://example.com/photo.jpg?token=" + String(repeating: "a1.", count: 200)) == "jpg")
        #expect(ext("https://example.com/photo." + String(repeating: "x", count: 223)) == "")
        #expect(ext("https://example.com/x.jpg00%00") == "jpg00")
    }

    @Test func storeDataToDiskOnly() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let data = try ImageCacheFixtures.pngData(width: 30, height: 20)
        try harness.cache.storeImageDataToDisk(data, forKey: key)
        #expect(harness.cache.diskImageDataExists(forKey: key))
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
        let path = try #require(harness.cache.cachePath(forKey: key))
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: path))
        let decoded = try CodersManager.shared.decode(onDisk, options: .default)
        #expect(decoded.pixelSize == PixelSize(width: 30, height: 20))
    }

    @Test func containsReportsWhereTheImageIs() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let cache = harness.cache
        #expect(await cache.containsImage(forKey: key) == .none)
        #expect(await cache.containsImage(forKey: nil) == .none)
        try await cache.storeImage(ImageCacheFixtures.opaque(), forKey: key)
        #expect(await cache.containsImage(forKey: key) == .memory)
        #expect(await cache.containsImage(forKey: key, cacheType: .disk) == .disk)
        #expect(await cache.containsImage(forKey: key, cacheType: .none) == .none)
        cache.clearMemory()
        #expect(await cache.containsImage(forKey: key) == .disk)
        #expect(await cache.containsImage(forKey: key, cacheType: .memory) == .none)
    }

    @Test func syncGettersDecodeAndPromote() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let fromDisk = try #require(harness.cache.imageFromDiskCache(forKey: key))
        #expect(fromDisk.format == .png)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) === fromDisk)
        #expect(harness.cache.imageFromCache(forKey: key) === fromDisk)
        #expect(harness.cache.imageFromCache(forKey: nil) == nil)
    }

    @Test func configLimitsReachTheCaches() {
        let harness = ImageCacheHarness { config in
            config.maxMemoryCount = 5
            config.maxMemoryCost = 10_000
            config.shouldUseWeakMemoryCache = true
            config.maxDiskSize = 1234
            config.diskCacheExpireType = .modificationDate
        }
        defer { harness.remove() }
        #expect(harness.cache.memoryCache.countLimit == 5)
        #expect(harness.cache.memoryCache.costLimit == 10_000)
        #expect(harness.cache.memoryCache.usesWeakCache)
        let disk = harness.cache.diskCache as? DiskCache
        #expect(disk?.config.maxDiskSize == 1234)
        #expect(disk?.config.expireType == .modificationDate)
        #expect(disk?.directoryPath == harness.cache.diskCachePath)
    }
}
