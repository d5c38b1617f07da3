import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// HTTP freshness through the manager, on the scripted loader and a test clock: `refreshCached`
/// and `respectsHTTPFreshness` answer fresh entries without a request, revalidate stale ones,
/// serve within `stale-while-revalidate` while revalidating in the background, and keep
/// `no-store` off the disk. Without either option nothing changes.
@Suite("Image manager: HTTP freshness")
struct ManagerFreshnessTests {
    /// Loads `url` once so its image, bytes and validators are stored; returns the clock in use.
    private func prime(_ h: ScriptedManagerHarness, _ url: URL) async throws -> TestDateClock {
        let clock = TestDateClock()
        h.manager.currentDate = clock.provider
        _ = try await h.manager.image(for: url, options: .waitStoreCache)
        h.drain()
        return clock
    }

    private func load(_ h: ScriptedManagerHarness, _ url: URL, _ options: WebImageOptions) async -> [ImageManagerResult] {
        let recorder = ResultRecorder()
        let operation = h.manager.start(url, options: options, context: .none, progress: nil, receiver: recorder.receiver)
        await recorder.waitForEnd()
        return await recorder.settled(operation)
    }

    @Test func refreshCachedAnswersAFreshEntryWithoutARequestAndRevalidatesAStaleOne() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/fresh.png", LoadScript.png(10, 10).validated(etag: "\"v1\"").header("Cache-Control", "max-age=2"))
            let clock = try await prime(h, url)
            let stored = try #require(h.cache.validators(forKey: url.absoluteString))
            #expect(stored.etag == "\"v1\"" && stored.freshness?.maxAge == 2)

            clock.advance(1)
            let fresh = await load(h, url, .refreshCached)
            #expect(fresh.count == 1 && fresh.first?.image != nil)
            #expect(h.loader.requestCount(url) == 1, "fresh: no request")

            clock.advance(2)
            let stale = await load(h, url, .refreshCached)
            #expect(stale.count == 1, "the cached image, then a 304 and nothing more")
            #expect(h.loader.requestCount(url) == 2)
            #expect(h.loader.requests(for: url).last?.validators == HTTPValidators(etag: "\"v1\""))
            h.drain()
            // The 304 renewed the freshness: fresh again for two seconds from now.
            #expect(h.cache.validators(forKey: url.absoluteString)?.freshness?.receivedAt == clock.now)
            clock.advance(1)
            _ = await load(h, url, .refreshCached)
            #expect(h.loader.requestCount(url) == 2)
        }
    }

    @Test func aStaleEntryIsRevalidatedBeforeUse() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/avatar.png", LoadScript.png(10, 10).validated(etag: "\"v1\"").header("Cache-Control", "max-age=2"))
            let clock = try await prime(h, url)

            let fresh = await load(h, url, .respectsHTTPFreshness)
            #expect(fresh.count == 1 && fresh.first?.cacheType == .memory && h.loader.requestCount(url) == 1)

            clock.advance(3)
            let unchanged = await load(h, url, .respectsHTTPFreshness)
            #expect(unchanged.count == 1, "one result, after the 304")
            #expect(unchanged.first?.image?.pixelSize == PixelSize(width: 10, height: 10))
            #expect(unchanged.first?.cacheType == .memory)
            #expect(h.loader.requestCount(url) == 2)
            // The loader logs its final after the manager's completion returned.
            await h.loader.waitForFinal(url, count: 2)
            #expect(h.loader.finals(for: url).last?.error?.code == .cacheNotModified)

            h.serve("/avatar.png", LoadScript.png(20, 20).validated(etag: "\"v2\"").header("Cache-Control", "max-age=2"))
            clock.advance(3)
            let changed = await load(h, url, [.respectsHTTPFreshness, .waitStoreCache])
            #expect(changed.count == 1, "only the new image")
            #expect(changed.first?.image?.pixelSize == PixelSize(width: 20, height: 20))
            #expect(changed.first?.cacheType == ImageCacheType.none)
            h.drain()
            #expect(h.cache.validators(forKey: url.absoluteString)?.etag == "\"v2\"")
        }
    }

    @Test func withinStaleWhileRevalidateTheHitIsServedAndRevalidatedInTheBackground() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/feed.png", LoadScript.png(10, 10).validated(etag: "\"v1\"")
                .header("Cache-Control", "max-age=2, stale-while-revalidate=10"))
            let clock = try await prime(h, url)

            clock.advance(5)
            let served = await load(h, url, .respectsHTTPFreshness)
            #expect(served.count == 1 && served.first?.cacheType == .memory, "served at once")
            // The background revalidation: a conditional request, answered 304, freshness renewed.
            await h.loader.waitForFinal(url, count: 2)
            #expect(h.loader.requests(for: url).last?.validators?.etag == "\"v1\"")
            h.drain()
            #expect(h.cache.validators(forKey: url.absoluteString)?.freshness?.receivedAt == clock.now)

            // Past the window it is revalidated before use instead.
            clock.advance(20)
            let late = await load(h, url, .respectsHTTPFreshness)
            #expect(late.count == 1)
            #expect(h.loader.requestCount(url) == 3)
        }
    }

    @Test func mustRevalidateAndNoCacheAreNeverServedStale() async throws {
        for control in ["max-age=2, stale-while-revalidate=60, must-revalidate", "no-cache"] {
            try await withScriptedManager { h in
                let url = h.serve("/strict.png", LoadScript.png(10, 10).validated(etag: "\"v1\"").header("Cache-Control", control))
                let clock = try await prime(h, url)
                clock.advance(control == "no-cache" ? 0 : 5)
                let results = await load(h, url, .respectsHTTPFreshness)
                #expect(results.count == 1, "\(control)")
                #expect(h.loader.requestCount(url) == 2, "\(control): revalidated before use")
                await h.loader.waitForFinal(url, count: 2)
                #expect(h.loader.finals(for: url).last?.error?.code == .cacheNotModified, "\(control)")
            }
        }
    }

    @Test func noStoreStaysOffTheDiskOnlyWhenAsked() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/private.png", LoadScript.png(10, 10).header("Cache-Control", "no-store"))
            _ = try await h.manager.image(for: url, options: [.respectsHTTPFreshness, .waitStoreCache])
            h.drain()
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) != nil)
            #expect(h.cache.diskImageData(forKey: url.absoluteString) == nil)

            let plain = h.serve("/plain.png", LoadScript.png(10, 10).header("Cache-Control", "no-store"))
            _ = try await h.manager.image(for: plain, options: .waitStoreCache)
            h.drain()
            #expect(h.cache.diskImageData(forKey: plain.absoluteString) != nil, "without the option: SDWebImage's rule")
        }
    }

    @Test func withoutEitherOptionHeadersChangeNothing() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/old.png", LoadScript.png(10, 10).validated(etag: "\"v1\"").header("Cache-Control", "max-age=0"))
            let clock = try await prime(h, url)
            clock.advance(3600)
            let results = await load(h, url, [])
            #expect(results.count == 1 && results.first?.cacheType == .memory)
            #expect(h.loader.requestCount(url) == 1)
        }
    }

    @Test func anEntryWithoutStoredFreshnessIsStale() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/bare.png", LoadScript.png(10, 10).validated(etag: "\"v1\""))
            _ = try await prime(h, url)
            #expect(h.cache.validators(forKey: url.absoluteString)?.freshness == nil)
            let results = await load(h, url, .respectsHTTPFreshness)
            #expect(results.count == 1)
            #expect(h.loader.requestCount(url) == 2)
        }
    }
}

/// The same rules end to end: the real downloader against the loopback origin's headers.
@Suite("Image manager: HTTP freshness over HTTP")
struct ManagerFreshnessOriginTests {
    @Test func maxAgeOfTwoSecondsOnATestClock() async throws {
        try await withManager { h in
            let clock = TestDateClock()
            h.manager.currentDate = clock.provider
            var route = TestOriginRoute.data(ManagerFixtures.png(8, 8), contentType: "image/png")
            route.etag = "\"e1\""
            route.headers = [("Cache-Control", "max-age=2")]
            h.origin.setRoute("/a.png", route)
            let url = h.origin.url("/a.png")
            _ = try await h.manager.image(for: url, options: .waitStoreCache)

            clock.advance(1)
            let fresh = try await h.manager.image(for: url, options: [.respectsHTTPFreshness, .refreshCached])
            #expect(fresh.cacheType == .memory)
            #expect(h.origin.requestCount("/a.png") == 1, "no request while fresh")

            clock.advance(2)
            let revalidated = try await h.manager.image(for: url, options: .respectsHTTPFreshness)
            #expect(revalidated.cacheType == .memory, "a 304 keeps the cached image")
            let requests = h.origin.requests("/a.png")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"e1\"")
        }
    }
}
