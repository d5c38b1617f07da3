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
        try await withManager { h in
            h.origin.setRoute("/a.png", .data(ManagerFixtures.png(20, 10), contentType: "image/png"))
            let recorder = ResultRecorder()
            let operations = OperationBox()
            let operation = h.manager.loadImage(with: h.origin.url("/a.png")) { result in
                operations.record(cache: operations.operation?.cacheOperation == nil,
                                  loader: operations.operation?.loaderOperation != nil)
                recorder.completion(result)
            }
            operations.operation = operation
            #expect(h.manager.isRunning)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(result.image?.pixelSize == PixelSize(width: 20, height: 10))
            #expect(result.error == nil && result.cacheType == .none && result.isFinished)
            #expect(result.data == Data(ManagerFixtures.png(20, 10)))
            #expect(result.byteCount == result.data?.count)
            #expect(result.url == h.origin.url("/a.png"))
            #expect(operations.seen == [true, true])
            await h.settle()
            #expect(!h.manager.isRunning)
        }
    }

    @Test func httpErrorIsReportedAndDoesNotBlock() async throws {
        try await withManager { h in
            h.origin.setRoute("/missing.png", .status(404))
            let url = h.origin.url("/missing.png")
            let error = await loadError(h.manager, url)
            #expect(error?.code == .invalidDownloadStatusCode && error?.httpStatus == 404)
            #expect(error?.url == url)
            #expect(await loadError(h.manager, url)?.code == .invalidDownloadStatusCode)
            #expect(!h.manager.isFailedURL(url))
            #expect(h.origin.requestCount("/missing.png") == 2)
        }
    }

    @Test func secondLoadIsAMemoryHitAndANewManagerFindsTheDisk() async throws {
        try await withManager { h in
            h.origin.setRoute("/b.jpg", .data(ManagerFixtures.jpeg(32, 16), contentType: "image/jpeg"))
            let url = h.origin.url("/b.jpg")
            #expect(try await h.manager.image(for: url).cacheType == .none)
            let hit = try await h.manager.image(for: url)
            #expect(hit.cacheType == .memory && hit.data == nil && hit.byteCount == 0)
            await h.settle()
            let (fresh, _) = h.freshManager()
            let disk = try await fresh.image(for: url)
            #expect(disk.cacheType == .disk && disk.image?.pixelSize == PixelSize(width: 32, height: 16))
            #expect(disk.byteCount == ManagerFixtures.jpeg(32, 16).count)
            #expect(h.origin.requestCount("/b.jpg") == 1)
        }
    }

    @Test func cancelAllReportsCancelledAndDrains() async throws {
        try await withManager { h in
            var slow = TestOriginRoute.data(ManagerFixtures.png(8, 8))
            slow.delay = .seconds(5)
            h.origin.setRoute("/slow.png", slow)
            let recorder = ResultRecorder()
            h.manager.loadImage(with: h.origin.url("/slow.png"), completed: recorder.completion)
            h.manager.loadImage(with: h.origin.url("/slow.png?2"), completed: recorder.completion)
            h.manager.cancelAll()
            let finals = await recorder.waitForFinals(2)
            #expect(finals.count == 2)
            #expect(finals.allSatisfy { $0.error?.code == .cancelled && $0.image == nil })
            #expect(!h.manager.isRunning)
        }
    }

    @Test func refreshCachedTwiceNestedNeverFails() async throws {
        try await withManager { h in
            h.origin.setRoute("/r.png", .data(ManagerFixtures.png(12, 12), contentType: "image/png"))
            let url = h.origin.url("/r.png")
            let first = try await h.manager.image(for: url, options: .refreshCached)
            #expect(first.image != nil)
            let second = try await h.manager.image(for: url, options: .refreshCached)
            #expect(second.image != nil && second.cacheType == .memory)
            await h.settle()
        }
    }

    @Test func optionsProcessorCanChangeTheContext() async throws {
        try await withManager { h in
            h.origin.setRoute("/s.png", .data(ManagerFixtures.png(30, 30)))
            let seen = CallRecorder<URL>()
            h.manager.optionsProcessor = ImageManagerOptionsProcessor { url, options, context in
                seen.record(url)
                var context = context
                context.scaleFactor = 3
                return (options, context)
            }
            let result = try await h.manager.image(for: h.origin.url("/s.png"))
            #expect(result.image?.scale == 3)
            #expect(seen.count == 1)
        }
    }

    @Test func cacheKeyFilterAndMemoryOnlyStore() async throws {
        try await withManager { h in
            h.origin.setRoute("/k.png", .data(ManagerFixtures.png(10, 10)))
            h.manager.cacheKeyFilter = CacheKeyFilter { _ in "filtered-key" }
            var context = WebImageContext()
            context.storeCacheType = .memory
            let result = try await h.manager.image(for: h.origin.url("/k.png"), context: context)
            #expect(result.cacheType == .none)
            await h.settle()
            #expect(h.cache.memoryCache.get(forKey: "filtered-key") != nil)
            // storeCacheType memory means memory only: nothing on disk.
            #expect(!h.cache.diskImageDataExists(forKey: "filtered-key"))
            #expect(h.manager.cacheKey(for: h.origin.url("/k.png")) == "filtered-key")
        }
    }

    @Test func cacheSerializerChoosesTheDiskBytes() async throws {
        try await withManager { h in
            h.origin.setRoute("/j.jpg", .data(ManagerFixtures.jpeg(16, 16)))
            let marker = Data("serialized".utf8)
            var context = WebImageContext()
            context.cacheSerializer = ImageCacheSerializer { _, _, _ in marker }
            let url = h.origin.url("/j.jpg")
            _ = try await h.manager.image(for: url, options: .waitStoreCache, context: context)
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == marker)
        }
    }

    @Test func customCacheAndLoaderFromTheContext() async throws {
        try await withManager { h in
            h.origin.setRoute("/c.png", .data(ManagerFixtures.png(100, 100)))
            let other = ImageCacheHarness(namespace: "other")
            defer { other.remove() }
            let unusedLoader = LoadersManager(loaders: [])
            let manager = ImageManager(cache: h.cache, loader: unusedLoader)
            var context = WebImageContext()
            context.imageCache = other.cache
            context.imageLoader = h.downloader
            let url = h.origin.url("/c.png")
            let result = try await manager.image(for: url, options: .waitStoreCache, context: context)
            #expect(result.image?.pixelSize == PixelSize(width: 100, height: 100) && result.data != nil)
            #expect(other.cache.diskImageDataExists(forKey: url.absoluteString))
            #expect(!h.cache.diskImageDataExists(forKey: url.absoluteString))
        }
    }

    @Test func queryCacheTypeChoosesWhereToLook() async throws {
        try await withManager { h in
            let url = h.origin.url("/q.png")
            let key = url.absoluteString
            try h.cache.storeImageDataToDisk(Data(ManagerFixtures.png(40, 40)), forKey: key)
            var memoryOnly = WebImageContext()
            memoryOnly.queryCacheType = .memory
            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, options: .fromCacheOnly, context: memoryOnly, completed: recorder.completion)
            let miss = try #require(await recorder.waitForFinals().first)
            #expect(miss.image == nil && miss.error == nil && miss.cacheType == .none)

            let other = Image(bitmap: Bitmap(width: 5, height: 5, fill: .black))
            h.cache.storeImageToMemory(other, forKey: key)
            var diskOnly = WebImageContext()
            diskOnly.queryCacheType = .disk
            let disk = try await h.manager.image(for: url, options: .fromCacheOnly, context: diskOnly)
            #expect(disk.cacheType == .disk && disk.image !== other)
            #expect(disk.image?.pixelSize == PixelSize(width: 40, height: 40))
            #expect(h.origin.requestCount("/q.png") == 0)
        }
    }

    @Test func scaleDownLargeImagesDecodesWithinTheBudget() async throws {
        try await withManager { h in
            h.origin.setRoute("/big.png", .data(ManagerFixtures.png(200, 200)))
            var context = WebImageContext()
            context.scaleDownLimitBytes = 100 * 100 * 4
            let url = h.origin.url("/big.png")
            let result = try await h.manager.image(for: url, options: [.fromLoaderOnly, .waitStoreCache],
                                                   context: context)
            let size = try #require(result.image?.pixelSize)
            #expect(size.width * size.height <= 100 * 100 && size.width == size.height)
            // The byte budget is not part of the key: the full data is cached under the URL.
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(200, 200)))
        }
    }

    /// SDWebImage's `SDScaledImageForKey`: a key with `@2x.` decodes at scale 2, `@3x.` at 3,
    /// anything else at 1, from the network and from the disk; a context scale wins over the key.
    @Test func scaleComesFromTheKeysAtSuffix() async throws {
        try await withManager { h in
            let cases = [("/icon@2x.png", 2.0), ("/icon@3x.png", 3.0), ("/icon.png", 1.0)]
            for (path, _) in cases { h.origin.setRoute(path, .data(ManagerFixtures.png(40, 20), contentType: "image/png")) }
            for (path, scale) in cases {
                let image = try #require(try await h.manager.image(for: h.origin.url(path), options: .waitStoreCache).image)
                #expect(image.scale == scale, "\(path)")
                #expect(image.pixelSize == PixelSize(width: 40, height: 20))
                #expect(image.pointSize.width == 40 / scale && image.pointSize.height == 20 / scale, "\(path)")
            }
            let (fresh, _) = h.freshManager()
            let fromDisk = try await fresh.image(for: h.origin.url("/icon@2x.png"))
            #expect(fromDisk.cacheType == .disk && fromDisk.image?.scale == 2)
            var context = WebImageContext()
            context.scaleFactor = 1.5
            let overridden = try await fresh.image(for: h.origin.url("/icon@3x.png"), options: .fromLoaderOnly, context: context)
            #expect(overridden.image?.scale == 1.5)
            for (path, _) in cases { #expect(h.origin.requestCount(path) == (path == "/icon@3x.png" ? 2 : 1)) }
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
