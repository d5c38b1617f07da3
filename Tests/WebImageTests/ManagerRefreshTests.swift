import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image manager: refreshCached revalidates with stored validators")
struct ManagerRefreshTests {
    @Test func unchangedOriginAnswers304AndThereIsNoSecondCallback() async throws {
        try await withManager { h in
            var route = TestOriginRoute.data(ManagerFixtures.png(10, 10), contentType: "image/png")
            route.etag = "\"v1\""
            h.origin.setRoute("/avatar.png", route)
            let url = h.origin.url("/avatar.png")
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.caches.drain()
            #expect(h.cache.validators(forKey: url.absoluteString)?.etag == "\"v1\"")

            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, options: .refreshCached, completed: recorder.completion)
            #expect(await waitUntil { h.origin.requestCount("/avatar.png") == 2 })
            await h.settle()
            try? await Task.sleep(for: .milliseconds(100))
            #expect(recorder.results.count == 1)
            #expect(recorder.results.first?.cacheType == .memory)
            #expect(h.origin.requests("/avatar.png").last?.header("If-None-Match") == "\"v1\"")
        }
    }

    @Test func changedOriginGivesASecondCallbackAndUpdatesBothCaches() async throws {
        try await withManager { h in
            var route = TestOriginRoute.data(ManagerFixtures.png(10, 10), contentType: "image/png")
            route.etag = "\"v1\""
            h.origin.setRoute("/feed.png", route)
            let url = h.origin.url("/feed.png")
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.caches.drain()

            var changed = TestOriginRoute.data(ManagerFixtures.png(20, 20), contentType: "image/png")
            changed.etag = "\"v2\""
            h.origin.setRoute("/feed.png", changed)
            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache], completed: recorder.completion)
            let finals = await recorder.waitForFinals(2)
            #expect(finals.count == 2)
            #expect(finals.first?.image?.pixelSize == PixelSize(width: 10, height: 10))
            #expect(finals.first?.cacheType == .memory)
            #expect(finals.last?.image?.pixelSize == PixelSize(width: 20, height: 20))
            #expect(finals.last?.cacheType == ImageCacheType.none)
            await h.settle()
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString)?.pixelSize == PixelSize(width: 20, height: 20))
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(20, 20)))
            #expect(h.cache.validators(forKey: url.absoluteString)?.etag == "\"v2\"")
        }
    }

    @Test func refreshFromANewProcessUsesTheDiskEntrysValidators() async throws {
        try await withManager { h in
            var route = TestOriginRoute.data(ManagerFixtures.jpeg(12, 12), contentType: "image/jpeg")
            route.lastModified = "Wed, 21 Oct 2026 07:28:00 GMT"
            h.origin.setRoute("/lm.jpg", route)
            let url = h.origin.url("/lm.jpg")
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.caches.drain()
            let (fresh, _) = h.freshManager()
            let events = fresh.imageEvents(for: url, options: .refreshCached)
            var images: [ImageManagerResult] = []
            for try await event in events {
                if case .image(let result) = event { images.append(result) }
            }
            #expect(images.count == 1 && images.first?.cacheType == .disk)
            #expect(h.origin.requests("/lm.jpg").last?.header("If-Modified-Since") == "Wed, 21 Oct 2026 07:28:00 GMT")
        }
    }
    @Test func originWithoutValidatorsSendingTheSameBytesGivesNoSecondCallback() async throws {
        try await withManager { h in
            let body = ManagerFixtures.png(10, 10)
            h.origin.setRoute("/plain.png", .data(body, contentType: "image/png"))
            let url = h.origin.url("/plain.png")
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.caches.drain()
            #expect(h.cache.validators(forKey: url.absoluteString) == nil)
            let cachedImage = try #require(h.cache.memoryCache.get(forKey: url.absoluteString))

            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, options: .refreshCached, completed: recorder.completion)
            #expect(await waitUntil { h.origin.requestCount("/plain.png") == 2 })
            await h.settle()
            try? await Task.sleep(for: .milliseconds(100))
            #expect(recorder.results.count == 1)
            #expect(recorder.results.first?.cacheType == .memory)
            // Sent unconditionally, and the caches keep the very same entry.
            let refresh = try #require(h.origin.requests("/plain.png").last)
            #expect(refresh.header("If-None-Match") == nil && refresh.header("If-Modified-Since") == nil)
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) === cachedImage)
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(body))
        }
    }

    @Test func originWithoutValidatorsSendingNewBytesGivesASecondCallback() async throws {
        try await withManager { h in
            h.origin.setRoute("/plain.png", .data(ManagerFixtures.png(10, 10), contentType: "image/png"))
            let url = h.origin.url("/plain.png")
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.caches.drain()
            h.origin.setRoute("/plain.png", .data(ManagerFixtures.png(20, 20), contentType: "image/png"))

            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache], completed: recorder.completion)
            let finals = await recorder.waitForFinals(2)
            #expect(finals.count == 2)
            #expect(finals.first?.image?.pixelSize == PixelSize(width: 10, height: 10))
            #expect(finals.last?.image?.pixelSize == PixelSize(width: 20, height: 20))
            await h.settle()
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(20, 20)))
        }
    }

    @Test func aRefreshDeliversNoPartialImagesAfterTheCachedOne() async throws {
        try await withManager { h in
            h.origin.setRoute("/prog.png", .data(ManagerFixtures.png(16, 16), contentType: "image/png"))
            let url = h.origin.url("/prog.png")
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.caches.drain()
            // New content that pauses at its middle: a progressive load would show a partial image there.
            let body = ManagerFixtures.png(256, 256)
            let gate = TestGate()
            var route = TestOriginRoute.data(body, contentType: "image/png")
            route.mode = .gated(body.count / 2, gate)
            h.origin.setRoute("/prog.png", route)
            let halfway = TestGate()
            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, options: [.refreshCached, .progressiveLoad],
                                progress: { received, _, _ in
                                    if received >= Int64(body.count / 2) { halfway.open() }
                                }, completed: recorder.completion)
            #expect(await waitUntil { halfway.opened })
            try? await Task.sleep(for: .milliseconds(200))
            gate.open()
            let finals = await recorder.waitForFinals(2)
            #expect(finals.count == 2)
            #expect(!recorder.results.contains { !$0.isFinished })
            #expect(recorder.results.compactMap(\.image).allSatisfy { !$0.isPartial })
            #expect(finals.last?.image?.pixelSize == PixelSize(width: 256, height: 256))
        }
    }
}
