import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image manager: transformers, thumbnails and the original's cache entry")
struct ManagerTransformTests {
    let resize = ResizingTransformer(size: PointSize(width: 40, height: 30), scaleMode: .fill)

    @Test func managerTransformerRunsAndTheTransformedImageIsCachedUnderItsKey() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/t.jpg", .body(ManagerFixtures.jpeg(120, 90), contentType: "image/jpeg"))
            h.manager.transformer = resize
            let result = try await h.manager.image(for: url, options: .waitStoreCache)
            #expect(result.image?.pixelSize == PixelSize(width: 40, height: 30))
            #expect(result.data == nil && result.byteCount == ManagerFixtures.jpeg(120, 90).count)
            #expect(result.image?.format == .jpeg)
            let key = try #require(h.manager.cacheKey(for: url, context: .none))
            #expect(key == CacheKey.transformedKey(for: url.absoluteString, transformerKey: resize.transformerKey))
            let stored = try #require(h.cache.diskImageData(forKey: key))
            #expect(try CodersManager.shared.decode(stored, options: DecodeOptions()).pixelSize
                    == PixelSize(width: 40, height: 30))
            // The original: on disk (default originalStoreCacheType), not in memory.
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.jpeg(120, 90)))
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) == nil)
        }
    }

    @Test func clearingOneManagerSettingKeepsTheOthersAndClearingAllRestoresThePlainKey() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/s.png", .png(60, 60))
            let plain = url.absoluteString
            let transformed = CacheKey.transformedKey(for: plain, transformerKey: resize.transformerKey)
            h.manager.transformer = resize
            h.manager.cacheKeyFilter = CacheKeyFilter { $0.absoluteString }
            h.manager.cacheKeyFilter = nil
            // The transformer still applies with the filter gone.
            let first = try await h.manager.image(for: url)
            #expect(first.image?.pixelSize == PixelSize(width: 40, height: 30))
            #expect(h.cache.memoryCache.get(forKey: transformed) != nil)
            // With every manager setting cleared, loads use the plain key and the full image.
            h.manager.transformer = nil
            let second = try await h.manager.image(for: url)
            #expect(second.image?.pixelSize == PixelSize(width: 60, height: 60))
            #expect(h.manager.cacheKey(for: url, context: .none) == plain)
            #expect(h.cache.memoryCache.get(forKey: plain) != nil)
        }
    }

    @Test func aNewTransformOfACachedOriginalDoesNotDownload() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/o.png", .png(60, 60))
            var first = WebImageContext()
            first.imageTransformer = resize
            _ = try await h.manager.image(for: url, options: .waitStoreCache, context: first)
            var second = WebImageContext()
            second.imageTransformer = FlippingTransformer(horizontal: true, vertical: false)
            let flipped = try await h.manager.image(for: url, context: second)
            #expect(flipped.cacheType == .disk && flipped.image?.pixelSize == PixelSize(width: 60, height: 60))
            #expect(flipped.data == nil)
            #expect(h.loader.requestCount(url) == 1)
        }
    }

    @Test func storeCacheTypesForOriginalAndTransformed() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/anim.gif", .body(ManagerFixtures.animatedGIF(24, 24)))
            var context = WebImageContext()
            context.imageTransformer = resize
            context.originalStoreCacheType = .disk
            context.storeCacheType = .memory
            let result = try await h.manager.image(for: url, options: [.transformAnimatedImage, .waitStoreCache],
                                                   context: context)
            #expect(result.image?.pixelSize == PixelSize(width: 40, height: 30))
            let key = try #require(h.manager.cacheKey(for: url, context: context))
            #expect(await h.cache.containsImage(forKey: key, cacheType: .all) == .memory)
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) == nil)
            let original = try #require(h.cache.diskImageData(forKey: url.absoluteString))
            #expect(try CodersManager.shared.decode(original, options: DecodeOptions()).frames.count == 3)
        }
    }

    @Test func animatedImagesAreLeftAloneWithoutTransformAnimatedImage() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.gif", .body(ManagerFixtures.animatedGIF(24, 24)))
            h.manager.transformer = resize
            let result = try await h.manager.image(for: url)
            #expect(result.image?.frames.count == 3 && result.image?.pixelSize == PixelSize(width: 24, height: 24))
        }
    }

    @Test func disabledTransformerBeatsTheManagers() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/d.png", .png(50, 50))
            h.manager.transformer = resize
            var context = WebImageContext()
            context.disablesTransformer = true
            let result = try await h.manager.image(for: url, context: context)
            #expect(result.image?.pixelSize == PixelSize(width: 50, height: 50) && result.data != nil)
            #expect(h.manager.cacheKey(for: url, context: context) == url.absoluteString)
        }
    }

    @Test func aTransformerThatFailsFallsBackToTheOriginal() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/f.png", .png(16, 16))
            var context = WebImageContext()
            context.imageTransformer = FailingTransformer()
            let result = try await h.manager.image(for: url, context: context)
            #expect(result.image?.pixelSize == PixelSize(width: 16, height: 16))
            #expect(result.data == Data(ManagerFixtures.png(16, 16)))
        }
    }

    @Test func differentCachesForOriginalAndTransformed() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/x.png", .png(103, 103))
            let originals = ImageCacheHarness(namespace: "originals")
            defer { originals.remove() }
            var context = WebImageContext()
            context.imageTransformer = resize
            context.originalImageCache = originals.cache
            context.originalStoreCacheType = .memory
            context.storeCacheType = .memory
            let result = try await h.manager.image(for: url, options: .waitStoreCache, context: context)
            #expect(result.data == nil)
            let key = try #require(h.manager.cacheKey(for: url, context: context))
            #expect(originals.cache.memoryCache.get(forKey: url.absoluteString)?.pixelSize
                    == PixelSize(width: 103, height: 103))
            #expect(originals.cache.memoryCache.get(forKey: key) == nil)
            #expect(h.cache.memoryCache.get(forKey: key)?.pixelSize == PixelSize(width: 40, height: 30))
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) == nil)
        }
    }

    @Test func originalQueryCacheTypeFindsAnOriginalInMemory() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/m.png", .png(102, 102))
            var context = WebImageContext()
            context.imageTransformer = resize
            context.originalStoreCacheType = .all
            _ = try await h.manager.image(for: url, options: .waitStoreCache, context: context)
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) != nil)
            let key = try #require(h.manager.cacheKey(for: url, context: context))
            await h.cache.removeImage(forKey: key, cacheType: .all)
            context.originalQueryCacheType = .all
            let again = try await h.manager.image(for: url, options: .fromCacheOnly, context: context)
            #expect(again.image?.pixelSize == PixelSize(width: 40, height: 30) && again.data == nil)
            #expect(h.loader.requestCount(url) == 1)
        }
    }

    @Test func thumbnailIsDecodedFromTheFullSizeDiskEntryWithoutNetwork() async throws {
        try await withScriptedManager { h in
            let url = h.url("/full.jpg")
            let full = Data(ManagerFixtures.jpeg(500, 500))
            try h.cache.storeImageDataToDisk(full, forKey: url.absoluteString)
            var context = WebImageContext()
            context.thumbnailPixelSize = PixelSize(width: 100, height: 100)
            let result = try await h.manager.image(for: url, options: .waitStoreCache, context: context)
            #expect(result.image?.pixelSize == PixelSize(width: 100, height: 100))
            #expect(result.data == nil && result.cacheType == .disk && result.isFinished)
            #expect(h.loader.requestCount == 0)
            let thumbKey = try #require(h.manager.cacheKey(for: url, context: context))
            #expect(h.cache.memoryCache.get(forKey: thumbKey)?.pixelSize == PixelSize(width: 100, height: 100))
            let stored = try #require(h.cache.diskImageData(forKey: thumbKey))
            #expect(try CodersManager.shared.decode(stored, options: DecodeOptions()).pixelSize
                    == PixelSize(width: 100, height: 100))
            // The original's bytes are untouched and the full size never entered memory.
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == full)
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) == nil)
        }
    }

    /// Over real HTTP on purpose: the subject is the downloader's sharing of one download between
    /// callers with different decode options (one request, one decode per thumbnail size), which
    /// only the real downloader does. The origin holds the body until all ten loads have joined.
    @Test func concurrentThumbnailsOfDifferentSizesShareOneDownload() async throws {
        try await withManager { h in
            let gate = TestGate()
            var route = TestOriginRoute.data(ManagerFixtures.jpeg(500, 500), contentType: "image/jpeg")
            route.mode = .gated(0, gate)
            h.origin.setRoute("/shared.jpg", route)
            let url = h.origin.url("/shared.jpg")
            let loader = ForwardingLoader(h.downloader)
            let manager = ImageManager(cache: h.cache, loader: loader)
            async let sizes = withThrowingTaskGroup(of: (Int, PixelSize?, Data?, ImageCacheType).self) { group in
                for side in 90..<100 {
                    group.addTask {
                        var context = WebImageContext()
                        context.thumbnailPixelSize = PixelSize(width: side, height: side)
                        let result = try await manager.image(for: url, context: context)
                        return (side, result.image?.pixelSize, result.data, result.cacheType)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            await loader.waitForRequests(10)
            gate.open()
            let results = try await sizes
            #expect(results.count == 10)
            for (side, size, data, cacheType) in results {
                #expect(size == PixelSize(width: side, height: side))
                #expect(data == nil && cacheType == .none)
            }
            #expect(h.origin.requestCount("/shared.jpg") == 1)
        }
    }
}
