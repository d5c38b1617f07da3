import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image prefetcher: low priority and what counts as skipped")
struct PrefetcherPriorityTests {
    /// Over real HTTP on purpose: the subject is the downloader's priority queue, which is what
    /// `lowPriority` (the prefetcher's default option) is for. One download slot is held by a body
    /// paused at its middle; the prefetches and then a normal load queue up behind it (each
    /// awaited as it reaches the downloader), and the normal load must go first.
    @Test func aNormalLoadQueuedLaterOvertakesQueuedPrefetches() async throws {
        var config = DownloaderConfig.default
        config.maxConcurrentDownloads = 1
        try await withManager(config) { h in
            let loader = ForwardingLoader(h.downloader)
            let manager = ImageManager(cache: h.cache, loader: loader)
            let busyBody = ManagerFixtures.png(8, 8)
            let gate = TestGate()
            var busy = TestOriginRoute.data(busyBody, contentType: "image/png")
            busy.mode = .gated(busyBody.count / 2, gate)
            h.origin.setRoute("/busy.png", busy)
            h.origin.setRoute("/visible.png", .data(ManagerFixtures.png(9, 9), contentType: "image/png"))
            let prefetched = (0..<3).map { index -> URL in
                h.origin.setRoute("/pre\(index).png", .data(ManagerFixtures.png(8 + index, 4)))
                return h.origin.url("/pre\(index).png")
            }
            let busyLoad = ResultRecorder()
            manager.loadImage(with: h.origin.url("/busy.png"), completed: busyLoad.completion)
            await h.origin.waitForRequest("/busy.png")

            let prefetcher = ImagePrefetcher(manager: manager)
            let recorder = PrefetchRecorder()
            prefetcher.prefetchURLs(prefetched, completed: recorder.completed)
            await loader.waitForRequests(4)
            #expect(h.downloader.currentDownloadCount == 4)
            let visible = ResultRecorder()
            manager.loadImage(with: h.origin.url("/visible.png"), completed: visible.completion)
            await loader.waitForRequests(5)
            #expect(h.downloader.currentDownloadCount == 5)
            gate.open()

            await recorder.waitForCompletion()
            #expect(recorder.completions == [.completed(finished: 3, skipped: 0)])
            #expect(await visible.waitForFinals().first?.image != nil)
            // The visible load goes right after the busy one; the three prefetches, queued at one
            // priority from concurrent cache misses, follow in whichever order their misses ended.
            let order = h.origin.stats.requests.map(\.path)
            #expect(Array(order.prefix(2)) == ["/busy.png", "/visible.png"])
            #expect(Set(order.dropFirst(2)) == ["/pre0.png", "/pre1.png", "/pre2.png"] && order.count == 5)
        }
    }

    /// A documented difference from SDWebImage, which counts only errors: a URL that ends with no
    /// image is not in the cache afterwards, so it counts as skipped even without an error.
    @Test func aFromCacheOnlyMissCountsAsSkipped() async throws {
        try await withScriptedManager { h in
            let urls = servePictures(h, 2)
            h.cache.storeImageToMemory(Image(bitmap: TestBitmaps.gradient(width: 3, height: 3)),
                                       forKey: urls[0].absoluteString)
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let counts = await prefetcher.prefetch(urls, options: .fromCacheOnly)
            #expect(counts.finished == 2 && counts.skipped == 1)
            #expect(h.loader.requestCount == 0)
        }
    }
}
