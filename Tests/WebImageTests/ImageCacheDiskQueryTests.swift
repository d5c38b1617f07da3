import Dispatch
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// What a disk hit becomes: decode options, thumbnails, promotion, coalescing, corrupt entries,
/// read-only lookup paths.
@Suite("ImageCache disk queries")
struct ImageCacheDiskQueryTests {
    let key = "http://example.com/photo.png"

    @Test func thumbnailIsPromotedUnderTheThumbnailKeyNeverTheFullKey() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(width: 500, height: 500), forKey: key)
        let context = WebImageContext(thumbnailPixelSize: PixelSize(width: 100, height: 100))
        let result = await harness.cache.queryResult(forKey: key, context: context)
        #expect(result.image?.pixelSize == PixelSize(width: 100, height: 100))
        #expect(result.image?.isThumbnail == true)
        #expect(result.cacheType == .disk)

        let thumbnailKey = CacheKey.thumbnailKey(for: key, width: 100, height: 100, preserveAspectRatio: true)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
        #expect(harness.cache.diskImageDataExists(forKey: key))
        #expect(harness.cache.imageFromMemoryCache(forKey: thumbnailKey) === result.image)
        #expect(!harness.cache.diskImageDataExists(forKey: thumbnailKey))
        // The same thumbnail query now hits memory.
        let again = await harness.cache.queryResult(forKey: key, context: context)
        #expect(again.cacheType == .memory)
        #expect(again.image === result.image)
    }

    @Test func storeCacheTypeDiskMeansNoPromotion() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        var context = WebImageContext()
        context.storeCacheType = .disk
        let result = await harness.cache.queryResult(forKey: key, context: context)
        #expect(result.image != nil)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
    }

    @Test func noPromotionWhenMemoryCachingIsOff() async throws {
        let harness = ImageCacheHarness { $0.shouldCacheImagesInMemory = false }
        defer { harness.remove() }
        let image = ImageCacheFixtures.opaque()
        try await harness.cache.storeImage(image, forKey: key)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
        let result = await harness.cache.queryResult(forKey: key)
        #expect(result.image?.pixelSize == image.pixelSize)
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
    }

    @Test func concurrentQueriesOfOneKeyReadAndDecodeOnce() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let coder = CountingCoder()
        // No promotion, so only the coalescing (not a memory re-check) can save the decodes.
        let context = WebImageContext(imageCoder: coder, storeCacheType: .disk)
        let gate = harness.blockIO()
        let results = (0..<8).map { _ in CallRecorder<ImageCacheQueryResult>() }
        for recorder in results {
            harness.cache.queryImage(forKey: key, options: [], context: context, cacheType: .all) { recorder.record($0) }
        }
        #expect(harness.cache.inFlightQueries.count == 1)
        gate.open()
        harness.drain()
        #expect(coder.decodeCount == 1)
        let first = try #require(results[0].last?.image)
        for recorder in results {
            #expect(recorder.count == 1)
            #expect(recorder.last?.image === first)
        }
        #expect(harness.cache.inFlightQueries.count == 0)
        // A later query is a new read and decode.
        harness.cache.queryImage(forKey: key, options: [], context: context, cacheType: .all) { _ in }
        harness.drain()
        #expect(coder.decodeCount == 2)
    }

    @Test func differentDecodeOptionsAreNotShared() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let coder = CountingCoder()
        let full = WebImageContext(imageCoder: coder, storeCacheType: .disk)
        var thumbnail = full
        thumbnail.thumbnailPixelSize = PixelSize(width: 10, height: 10)
        let gate = harness.blockIO()
        let sizes = CallRecorder<PixelSize?>()
        harness.cache.queryImage(forKey: key, options: [], context: full, cacheType: .all) { sizes.record($0.image?.pixelSize) }
        harness.cache.queryImage(forKey: key, options: [], context: thumbnail, cacheType: .all) { sizes.record($0.image?.pixelSize) }
        gate.open()
        harness.drain()
        #expect(coder.decodeCount == 2)
        #expect(sizes.count == 2)
    }

    @Test func cancellingOneWaiterLeavesTheOthers() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let gate = harness.blockIO()
        let cancelled = CallRecorder<ImageCacheQueryResult>()
        let kept = CallRecorder<ImageCacheQueryResult>()
        let token = harness.cache.queryImage(forKey: key, options: [], context: .none, cacheType: .all) { cancelled.record($0) }
        harness.cache.queryImage(forKey: key, options: [], context: .none, cacheType: .all) { kept.record($0) }
        token?.cancel()
        gate.open()
        harness.drain()
        #expect(cancelled.count == 1)
        #expect(cancelled.last?.image == nil)
        #expect(kept.count == 1)
        #expect(kept.last?.image != nil)
    }

    @Test func corruptEntryIsAMissAndIsRemoved() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        var bytes = try ImageCacheFixtures.pngData()
        bytes = bytes.prefix(40)  // a PNG signature and a cut-off header
        try harness.cache.storeImageDataToDisk(bytes, forKey: key)
        let result = await harness.cache.queryResult(forKey: key)
        #expect(result.image == nil)
        #expect(result.data == nil)
        #expect(result.cacheType == .disk)
        #expect(!harness.cache.diskImageDataExists(forKey: key))

        try harness.cache.storeImageDataToDisk(Data("not an image at all".utf8), forKey: key)
        #expect(harness.cache.imageFromDiskCache(forKey: key) == nil)
        #expect(!harness.cache.diskImageDataExists(forKey: key))
    }

    @Test func readOnlyLookupPathsAreReadNeverWritten() async throws {
        let harness = ImageCacheHarness()
        let bundle = DiskCacheSandbox()
        defer { harness.remove(); bundle.remove() }
        let data = try ImageCacheFixtures.pngData(width: 12, height: 6)
        // A directory laid out as the disk cache names its files.
        let fileName = (harness.cache.cachePath(forKey: key)! as NSString).lastPathComponent
        try data.write(to: bundle.root.appendingPathComponent(fileName))
        // And a closure naming an arbitrary file for another key.
        let other = "bundled://logo"
        let otherPath = bundle.root.appendingPathComponent("logo.png").path
        try data.write(to: URL(fileURLWithPath: otherPath))

        let withPaths = ImageCacheHarness(namespace: "paths") { config in
            config.additionalCacheDirectories = [bundle.root]
            config.additionalCachePath = { $0 == other ? otherPath : nil }
        }
        defer { withPaths.remove() }
        for lookup in [key, other] {
            let result = await withPaths.cache.queryResult(forKey: lookup)
            #expect(result.image?.pixelSize == PixelSize(width: 12, height: 6))
            #expect(result.data == data)
            #expect(!withPaths.cache.diskImageDataExists(forKey: lookup))
        }
        #expect(withPaths.cache.totalDiskCount == 0)
        #expect(withPaths.cache.diskImageData(forKey: other) == data)
        #expect(harness.cache.diskImageData(forKey: other) == nil)
    }
}
