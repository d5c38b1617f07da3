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
        try await withManager { h in
            var route = TestOriginRoute.data(ManagerFixtures.png(40, 20), contentType: "image/png")
            route.etag = "\"v1\""
            h.origin.setRoute("/wide.png", route)
            let url = h.origin.url("/wide.png")
            var context = WebImageContext()
            context.thumbnailPixelSize = PixelSize(width: 10, height: 10)
            let first = try await h.manager.image(for: url, options: .waitStoreCache, context: context)
            #expect(first.image?.pixelSize == PixelSize(width: 10, height: 5))
            h.caches.drain()
            let thumbnailKey = try #require(h.manager.cacheKey(for: url, context: context))
            #expect(thumbnailKey != url.absoluteString)
            #expect(h.cache.validators(forKey: url.absoluteString)?.etag == "\"v1\"")

            // Unchanged: 304, the cached thumbnail only.
            let unchanged = ResultRecorder()
            h.manager.loadImage(with: url, options: .refreshCached, context: context, completed: unchanged.completion)
            #expect(await waitUntil { h.origin.requestCount("/wide.png") == 2 })
            await h.settle()
            try? await Task.sleep(for: .milliseconds(100))
            #expect(unchanged.results.count == 1 && unchanged.results.first?.cacheType == .memory)
            #expect(h.origin.requests("/wide.png").last?.header("If-None-Match") == "\"v1\"")

            // Changed: a second callback with the new thumbnail, and the original's validators move on.
            var changed = TestOriginRoute.data(ManagerFixtures.png(20, 40), contentType: "image/png")
            changed.etag = "\"v2\""
            h.origin.setRoute("/wide.png", changed)
            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache], context: context,
                                completed: recorder.completion)
            let finals = await recorder.waitForFinals(2)
            #expect(finals.count == 2)
            #expect(finals.first?.image?.pixelSize == PixelSize(width: 10, height: 5))
            #expect(finals.last?.image?.pixelSize == PixelSize(width: 5, height: 10))
            await h.settle()
            #expect(h.cache.memoryCache.get(forKey: thumbnailKey)?.pixelSize == PixelSize(width: 5, height: 10))
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(20, 40)))
            #expect(h.cache.validators(forKey: url.absoluteString)?.etag == "\"v2\"")
        }
    }

    @Test func transformedRefreshComparesTheOriginalsBytesAndDeliversTheNewTransform() async throws {
        try await withManager { h in
            // No validators at all: only the bytes tell a change.
            h.origin.setRoute("/t.png", .data(ManagerFixtures.png(12, 12), contentType: "image/png"))
            let url = h.origin.url("/t.png")
            var context = WebImageContext()
            context.imageTransformer = FlippingTransformer(horizontal: true, vertical: false)
            _ = try await h.manager.image(for: url, options: .waitStoreCache, context: context)
            h.caches.drain()
            let transformedKey = try #require(h.manager.cacheKey(for: url, context: context))
            let cachedTransform = try #require(h.cache.memoryCache.get(forKey: transformedKey))

            let unchanged = ResultRecorder()
            h.manager.loadImage(with: url, options: .refreshCached, context: context, completed: unchanged.completion)
            #expect(await waitUntil { h.origin.requestCount("/t.png") == 2 })
            await h.settle()
            try? await Task.sleep(for: .milliseconds(100))
            #expect(unchanged.results.count == 1)
            #expect(h.cache.memoryCache.get(forKey: transformedKey) === cachedTransform)

            h.origin.setRoute("/t.png", .data(ManagerFixtures.png(24, 24), contentType: "image/png"))
            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache], context: context,
                                completed: recorder.completion)
            let finals = await recorder.waitForFinals(2)
            #expect(finals.count == 2)
            #expect(finals.first?.image === cachedTransform)
            #expect(finals.last?.image?.pixelSize == PixelSize(width: 24, height: 24))
            #expect(finals.last?.image !== cachedTransform)
            await h.settle()
            #expect(h.cache.memoryCache.get(forKey: transformedKey)?.pixelSize == PixelSize(width: 24, height: 24))
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(24, 24)))
        }
    }
}
