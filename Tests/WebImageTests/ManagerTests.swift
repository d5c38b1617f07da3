import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image manager: the pipeline (SDWebImageManagerTests)")
struct ManagerTests {
    @Test func sharedManagerIsNotANewManager() {
        #expect(ImageManager() !== ImageManager.shared)
    }

    @Test func downloadCompletesWithImageDataAndOperationState() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.png", LoadScript.png(20, 10).holding(.started))
            let recorder = ResultRecorder()
            let operations = OperationBox()
            let operation = h.manager.loadImage(with: url) { result in
                operations.record(cache: operations.operation?.cacheOperation == nil,
                                  loader: operations.operation?.loaderOperation != nil)
                recorder.completion(result)
            }
            operations.operation = operation
            #expect(h.manager.isRunning)
            // Held at the loader: the query's callback, which made the request, has run.
            await h.loader.waitUntilHeld(url)
            h.drain()
            #expect(operation.cacheOperation == nil && operation.loaderOperation != nil)
            #expect(h.manager.isRunning && !operation.isFinished)
            h.loader.release(url)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(await recorder.settled(operation).count == 1)
            #expect(result.image?.pixelSize == PixelSize(width: 20, height: 10))
            #expect(result.error == nil && result.cacheType == .none && result.isFinished)
            #expect(result.data == Data(ManagerFixtures.png(20, 10)))
            #expect(result.byteCount == result.data?.count)
            #expect(result.url == url)
            #expect(operations.seen == [true, true])
            #expect(!h.manager.isRunning)
        }
    }

    @Test func httpErrorIsReportedAndDoesNotBlock() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/missing.png", .status(404))
            let error = await loadError(h.manager, url)
            #expect(error?.code == .invalidDownloadStatusCode && error?.httpStatus == 404)
            #expect(error?.url == url)
            #expect(await loadError(h.manager, url)?.code == .invalidDownloadStatusCode)
            #expect(!h.manager.isFailedURL(url))
            #expect(h.loader.requestCount(url) == 2)
        }
    }

    @Test func secondLoadIsAMemoryHitAndANewManagerFindsTheDisk() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/b.jpg", .body(ManagerFixtures.jpeg(32, 16), contentType: "image/jpeg"))
            #expect(try await h.manager.image(for: url).cacheType == .none)
            let hit = try await h.manager.image(for: url)
            #expect(hit.cacheType == .memory && hit.data == nil && hit.byteCount == 0)
            h.drain()
            let (fresh, _) = h.freshManager()
            let disk = try await fresh.image(for: url)
            #expect(disk.cacheType == .disk && disk.image?.pixelSize == PixelSize(width: 32, height: 16))
            #expect(disk.byteCount == ManagerFixtures.jpeg(32, 16).count)
            #expect(h.loader.requestCount(url) == 1)
        }
    }

    @Test func cancelAllReportsCancelledAndDrains() async throws {
        try await withScriptedManager { h in
            let first = h.serve("/slow.png", LoadScript.png(8, 8).holding(.started))
            let second = h.serve("/slow.png?2", LoadScript.png(8, 8).holding(.started))
            let recorder = ResultRecorder()
            let operations = [h.manager.loadImage(with: first, completed: recorder.completion),
                              h.manager.loadImage(with: second, completed: recorder.completion)]
            // Both loads are at the loader, so cancelAll must reach the loader's requests too.
            await h.loader.waitForHeld(2)
            h.drain()  // the query callbacks that made the requests have handed their tokens over
            h.manager.cancelAll()
            #expect(!h.manager.isRunning)
            let finals = await recorder.waitForFinals(2)
            #expect(finals.allSatisfy { $0.error?.code == .cancelled && $0.image == nil })
            // Each cancel reached the loader's request inside `cancelAll()`.
            #expect(h.loader.cancelCount(first) == 1 && h.loader.cancelCount(second) == 1)
            #expect(h.loader.heldCount == 0 && h.loader.inFlight == 0)
            for operation in operations { _ = await recorder.settled(operation) }
            #expect(recorder.results.count == 2)
        }
    }

    @Test func refreshCachedTwiceNestedNeverFails() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/r.png", .png(12, 12))
            let first = try await h.manager.image(for: url, options: .refreshCached)
            #expect(first.image != nil)
            let second = try await h.manager.image(for: url, options: .refreshCached)
            #expect(second.image != nil && second.cacheType == .memory)
            // The second load went on to revalidate with the loader.
            await h.loader.waitForFinal(url, count: 2)
        }
    }

    @Test func optionsProcessorCanChangeTheContext() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/s.png", .png(30, 30))
            let seen = CallRecorder<URL>()
            h.manager.optionsProcessor = ImageManagerOptionsProcessor { url, options, context in
                seen.record(url)
                var context = context
                context.scaleFactor = 3
                return (options, context)
            }
            let result = try await h.manager.image(for: url)
            #expect(result.image?.scale == 3)
            #expect(seen.count == 1)
            #expect(h.loader.requests(for: url).first?.decodeOptions.scaleFactor == 3)
        }
    }

    @Test func cacheKeyFilterAndMemoryOnlyStore() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/k.png", .png(10, 10))
            h.manager.cacheKeyFilter = CacheKeyFilter { _ in "filtered-key" }
            var context = WebImageContext()
            context.storeCacheType = .memory
            let result = try await h.manager.image(for: url, context: context)
            #expect(result.cacheType == .none)
            h.drain()
            #expect(h.cache.memoryCache.get(forKey: "filtered-key") != nil)
            // storeCacheType memory means memory only: nothing on disk.
            #expect(!h.cache.diskImageDataExists(forKey: "filtered-key"))
            #expect(h.manager.cacheKey(for: url) == "filtered-key")
        }
    }

    @Test func cacheSerializerChoosesTheDiskBytes() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/j.jpg", .body(ManagerFixtures.jpeg(16, 16)))
            let marker = Data("serialized".utf8)
            var context = WebImageContext()
            context.cacheSerializer = ImageCacheSerializer { _, _, _ in marker }
            _ = try await h.manager.image(for: url, options: .waitStoreCache, context: context)
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == marker)
        }
    }

    @Test func customCacheAndLoaderFromTheContext() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/c.png", .png(100, 100))
            let other = ImageCacheHarness(namespace: "other")
            defer { other.remove() }
            let unusedLoader = LoadersManager(loaders: [])
            let manager = ImageManager(cache: h.cache, loader: unusedLoader)
            var context = WebImageContext()
            context.imageCache = other.cache
            context.imageLoader = h.loader
            let result = try await manager.image(for: url, options: .waitStoreCache, context: context)
            #expect(result.image?.pixelSize == PixelSize(width: 100, height: 100) && result.data != nil)
            #expect(other.cache.diskImageDataExists(forKey: url.absoluteString))
            #expect(!h.cache.diskImageDataExists(forKey: url.absoluteString))
            #expect(h.loader.requestCount(url) == 1)
        }
    }

    @Test func queryCacheTypeChoosesWhereToLook() async throws {
        try await withScriptedManager { h in
            let url = h.url("/q.png")
            let key = url.absoluteString
            try h.cache.storeImageDataToDisk(Data(ManagerFixtures.png(40, 40)), forKey: key)
            var memoryOnly = WebImageContext()
            memoryOnly.queryCacheType = .memory
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: .fromCacheOnly, context: memoryOnly,
                                                completed: recorder.completion)
            let miss = try #require(await recorder.waitForFinals().first)
            #expect(await recorder.settled(operation).count == 1)
            #expect(miss.image == nil && miss.error == nil && miss.cacheType == .none)

            let other = Image(bitmap: Bitmap(width: 5, height: 5, fill: .black))
            h.cache.storeImageToMemory(other, forKey: key)
            var diskOnly = WebImageContext()
            diskOnly.queryCacheType = .disk
            let disk = try await h.manager.image(for: url, options: .fromCacheOnly, context: diskOnly)
            #expect(disk.cacheType == .disk && disk.image !== other)
            #expect(disk.image?.pixelSize == PixelSize(width: 40, height: 40))
            #expect(h.loader.requestCount == 0)
        }
    }

    @Test func scaleDownLargeImagesDecodesWithinTheBudget() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/big.png", .png(200, 200))
            var context = WebImageContext()
            context.scaleDownLimitBytes = 100 * 100 * 4
            let result = try await h.manager.image(for: url, options: [.fromLoaderOnly, .waitStoreCache],
                                                   context: context)
            let size = try #require(result.image?.pixelSize)
            #expect(size.width * size.height <= 100 * 100 && size.width == size.height)
            // The byte budget is not part of the key: the full data is cached under the URL.
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(200, 200)))
        }
    }

    /// SDWebImage's `SDScaledImageForKey`: a key with `@2x.` decodes at scale 2, `@3x.` at 3,
    /// anything else at 1, from the loader and from the disk; a context scale wins over the key.
    @Test func scaleComesFromTheKeysAtSuffix() async throws {
        try await withScriptedManager { h in
            let cases = [("/icon@2x.png", 2.0), ("/icon@3x.png", 3.0), ("/icon.png", 1.0)]
            for (path, _) in cases { h.serve(path, .png(40, 20)) }
            for (path, scale) in cases {
                let image = try #require(try await h.manager.image(for: h.url(path), options: .waitStoreCache).image)
                #expect(image.scale == scale, "\(path)")
                #expect(image.pixelSize == PixelSize(width: 40, height: 20))
                #expect(image.pointSize.width == 40 / scale && image.pointSize.height == 20 / scale, "\(path)")
            }
            let (fresh, _) = h.freshManager()
            let fromDisk = try await fresh.image(for: h.url("/icon@2x.png"))
            #expect(fromDisk.cacheType == .disk && fromDisk.image?.scale == 2)
            var context = WebImageContext()
            context.scaleFactor = 1.5
            let overridden = try await fresh.image(for: h.url("/icon@3x.png"), options: .fromLoaderOnly, context: context)
            #expect(overridden.image?.scale == 1.5)
            for (path, _) in cases { #expect(h.loader.requestCount(h.url(path)) == (path == "/icon@3x.png" ? 2 : 1)) }
        }
    }
}

/// Records what the completion saw of its own operation.
final class OperationBox: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var _operation: ImageManagerOperation?
    private var _seen: [Bool] = []

    var operation: ImageManagerOperation? {
        get { lock.withLock { _operation } }
        set { lock.withLock { _operation = newValue } }
    }

    func record(cache: Bool, loader: Bool) { lock.withLock { _seen = [cache, loader] } }
    var seen: [Bool] { lock.withLock { _seen } }
}
