import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// `refreshCached` on a thumbnail or transformed key: the validators and the cached bytes are the
/// original key's, and a change is delivered as a new derived image.
@Suite("Image manager: refreshCached on thumbnail and transformed keys")
struct ManagerRefreshDerivedTests {
    @Test func thumbnailRefreshRevalidatesWithTheOriginalsValidators() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/wide.png", LoadScript.png(40, 20).validated(etag: "\"v1\""))
            var context = WebImageContext()
            context.thumbnailPixelSize = PixelSize(width: 10, height: 10)
            let first = try await h.manager.image(for: url, options: .waitStoreCache, context: context)
            #expect(first.image?.pixelSize == PixelSize(width: 10, height: 5))
            h.drain()
            let thumbnailKey = try #require(h.manager.cacheKey(for: url, context: context))
            #expect(thumbnailKey != url.absoluteString)
            #expect(h.cache.validators(forKey: url.absoluteString)?.etag == "\"v1\"")

            // Unchanged: 304, the cached thumbnail only.
            let unchanged = ResultRecorder()
            let refresh = h.manager.loadImage(with: url, options: .refreshCached, context: context,
                                              completed: unchanged.completion)
            await h.loader.waitForFinal(url, count: 2)
            let results = await unchanged.settled(refresh)
            #expect(results.count == 1 && results.first?.cacheType == .memory)
            #expect(h.loader.requests(for: url).last?.validators?.etag == "\"v1\"")

            // Changed: a second callback with the new thumbnail, and the original's validators move on.
            h.serve("/wide.png", LoadScript.png(20, 40).validated(etag: "\"v2\""))
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache], context: context,
                                                completed: recorder.completion)
            await recorder.waitForFinals(2)
            let finals = await recorder.settled(operation)
            #expect(finals.count == 2)
            #expect(finals.first?.image?.pixelSize == PixelSize(width: 10, height: 5))
            #expect(finals.last?.image?.pixelSize == PixelSize(width: 5, height: 10))
            h.drain()
            #expect(h.cache.memoryCache.get(forKey: thumbnailKey)?.pixelSize == PixelSize(width: 5, height: 10))
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(20, 40)))
            #expect(h.cache.validators(forKey: url.absoluteString)?.etag == "\"v2\"")
        }
    }

    @Test func transformedRefreshComparesTheOriginalsBytesAndDeliversTheNewTransform() async throws {
        try await withScriptedManager { h in
            // No validators at all: only the bytes tell a change.
            let url = h.serve("/t.png", .png(12, 12))
            var context = WebImageContext()
            context.imageTransformer = FlippingTransformer(horizontal: true, vertical: false)
            _ = try await h.manager.image(for: url, options: .waitStoreCache, context: context)
            h.drain()
            let transformedKey = try #require(h.manager.cacheKey(for: url, context: context))
            let cachedTransform = try #require(h.cache.memoryCache.get(forKey: transformedKey))

            let unchanged = ResultRecorder()
            let released = TestGate()
            let refresh = h.manager.loadImage(with: url, options: .refreshCached, context: context.probed(released),
                                              completed: unchanged.completion)
            await released.wait("the refresh to let go of its context")
            #expect(await unchanged.settled(refresh).count == 1)
            #expect(h.loader.requestCount(url) == 2)
            #expect(h.cache.memoryCache.get(forKey: transformedKey) === cachedTransform)

            h.serve("/t.png", .png(24, 24))
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache], context: context,
                                                completed: recorder.completion)
            await recorder.waitForFinals(2)
            let finals = await recorder.settled(operation)
            #expect(finals.count == 2)
            #expect(finals.first?.image === cachedTransform)
            #expect(finals.last?.image?.pixelSize == PixelSize(width: 24, height: 24))
            #expect(finals.last?.image !== cachedTransform)
            h.drain()
            #expect(h.cache.memoryCache.get(forKey: transformedKey)?.pixelSize == PixelSize(width: 24, height: 24))
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(24, 24)))
        }
    }
}
