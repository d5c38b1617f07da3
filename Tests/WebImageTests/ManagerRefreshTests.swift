import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image manager: refreshCached revalidates with stored validators")
struct ManagerRefreshTests {
    @Test func unchangedOriginAnswers304AndThereIsNoSecondCallback() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/avatar.png", LoadScript.png(10, 10).validated(etag: "\"v1\""))
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.drain()
            #expect(h.cache.validators(forKey: url.absoluteString)?.etag == "\"v1\"")

            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: .refreshCached, completed: recorder.completion)
            // The 304 has been handed to the manager, which ends the load in that same call.
            await h.loader.waitForFinal(url, count: 2)
            #expect(h.loader.finals(for: url).last?.error?.code == .cacheNotModified)
            let results = await recorder.settled(operation)
            #expect(results.count == 1)
            #expect(results.first?.cacheType == .memory)
            #expect(h.loader.requests(for: url).last?.validators?.etag == "\"v1\"")
            #expect(!h.manager.isRunning)
        }
    }

    @Test func changedOriginGivesASecondCallbackAndUpdatesBothCaches() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/feed.png", LoadScript.png(10, 10).validated(etag: "\"v1\""))
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.drain()

            h.serve("/feed.png", LoadScript.png(20, 20).validated(etag: "\"v2\""))
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache],
                                                completed: recorder.completion)
            await recorder.waitForFinals(2)
            let finals = await recorder.settled(operation)
            #expect(finals.count == 2)
            #expect(finals.first?.image?.pixelSize == PixelSize(width: 10, height: 10))
            #expect(finals.first?.cacheType == .memory)
            #expect(finals.last?.image?.pixelSize == PixelSize(width: 20, height: 20))
            #expect(finals.last?.cacheType == ImageCacheType.none)
            h.drain()
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString)?.pixelSize == PixelSize(width: 20, height: 20))
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(20, 20)))
            #expect(h.cache.validators(forKey: url.absoluteString)?.etag == "\"v2\"")
        }
    }

    @Test func refreshFromANewProcessUsesTheDiskEntrysValidators() async throws {
        try await withScriptedManager { h in
            let date = "Wed, 21 Oct 2026 07:28:00 GMT"
            let url = h.serve("/lm.jpg", LoadScript.body(ManagerFixtures.jpeg(12, 12), contentType: "image/jpeg")
                .validated(lastModified: date))
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.drain()
            let (fresh, _) = h.freshManager()
            var images: [ImageManagerResult] = []
            for try await event in fresh.imageEvents(for: url, options: .refreshCached) {
                if case .image(let result) = event { images.append(result) }
            }
            #expect(images.count == 1 && images.first?.cacheType == .disk)
            #expect(h.loader.requests(for: url).last?.validators?.lastModified == date)
            // The loader logs its final after the manager's completion returned.
            await h.loader.waitForFinal(url, count: 2)
            #expect(h.loader.finals(for: url).last?.error?.code == .cacheNotModified)
        }
    }

    @Test func originWithoutValidatorsSendingTheSameBytesGivesNoSecondCallback() async throws {
        try await withScriptedManager { h in
            let body = ManagerFixtures.png(10, 10)
            let url = h.serve("/plain.png", .body(body, contentType: "image/png"))
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.drain()
            #expect(h.cache.validators(forKey: url.absoluteString) == nil)
            let cachedImage = try #require(h.cache.memoryCache.get(forKey: url.absoluteString))

            let recorder = ResultRecorder()
            let released = TestGate()
            let operation = h.manager.loadImage(with: url, options: .refreshCached,
                                                context: WebImageContext().probed(released),
                                                completed: recorder.completion)
            // The bytes are compared off the loader's thread; once the load has let go of
            // everything, its silent end is all that happened.
            await released.wait("the refresh to let go of its context")
            let results = await recorder.settled(operation)
            #expect(results.count == 1)
            #expect(results.first?.cacheType == .memory)
            // Sent unconditionally, and the caches keep the very same entry.
            let refresh = try #require(h.loader.requests(for: url).last)
            #expect(h.loader.requestCount(url) == 2 && refresh.validators == nil)
            h.drain()
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) === cachedImage)
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(body))
        }
    }

    @Test func originWithoutValidatorsSendingNewBytesGivesASecondCallback() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/plain.png", .png(10, 10))
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.drain()
            h.serve("/plain.png", .png(20, 20))

            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: [.refreshCached, .waitStoreCache],
                                                completed: recorder.completion)
            await recorder.waitForFinals(2)
            let finals = await recorder.settled(operation)
            #expect(finals.count == 2)
            #expect(finals.first?.image?.pixelSize == PixelSize(width: 10, height: 10))
            #expect(finals.last?.image?.pixelSize == PixelSize(width: 20, height: 20))
            h.drain()
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == Data(ManagerFixtures.png(20, 20)))
        }
    }

    @Test func aRefreshDeliversNoPartialImagesAfterTheCachedOne() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/prog.png", .png(16, 16))
            _ = try await h.manager.image(for: url, options: .waitStoreCache)
            h.drain()
            // New content that pauses at its middle: a progressive load would show a partial image there.
            let body = ManagerFixtures.png(256, 256)
            h.serve("/prog.png", LoadScript.body(body, contentType: "image/png")
                .inChunks(body.count / 2).holding(.beforeCompletion))
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: [.refreshCached, .progressiveLoad],
                                                completed: recorder.completion)
            // Half the body has arrived (and would have been decoded) before the load holds.
            await h.loader.waitUntilHeld(url, at: .beforeCompletion)
            #expect(h.loader.requests(for: url).last?.options.contains(.progressiveLoad) == false)
            h.loader.release(url)
            await recorder.waitForFinals(2)
            let results = await recorder.settled(operation)
            #expect(results.count == 2)
            #expect(!results.contains { !$0.isFinished })
            #expect(results.compactMap(\.image).allSatisfy { !$0.isPartial })
            #expect(results.last?.image?.pixelSize == PixelSize(width: 256, height: 256))
        }
    }

    /// The completion API is the event API without its silent end: a revalidation that ends
    /// silently adds nothing to a completion handler.
    @Test func aCompletionHearsNothingOfASilentEnd() {
        let recorder = ResultRecorder()
        let receiver = ImageManagerOperation.Receiver.completion(recorder.completion)
        receiver.receive(.endedSilently)
        #expect(recorder.results.isEmpty)
        receiver.receive(.result(ImageManagerResult(), isLast: true))
        #expect(recorder.results.count == 1)
    }
}
