import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Records what a prefetch request and the prefetcher's delegate report, in call order.
final class PrefetchRecorder: ImagePrefetcherDelegate, Sendable {
    enum Call: Equatable, Sendable {
        case delegatePrefetched(finished: Int, total: Int)
        case delegateFinished(total: Int, skipped: Int)
        case progress(finished: Int, total: Int)
        case completed(finished: Int, skipped: Int)
    }

    private let state = Mutex<[Call]>([])

    var calls: [Call] { state.withLock { $0 } }

    var progress: ImagePrefetchProgress { { finished, total in self.record(.progress(finished: finished, total: total)) } }
    var completed: ImagePrefetchCompletion { { finished, skipped in self.record(.completed(finished: finished, skipped: skipped)) } }

    var completions: [Call] { calls.filter { if case .completed = $0 { return true } else { return false } } }
    var progressCalls: [Call] { calls.filter { if case .progress = $0 { return true } else { return false } } }

    func record(_ call: Call) { state.withLock { $0.append(call) } }

    func imagePrefetcher(_ prefetcher: ImagePrefetcher, didPrefetch url: URL, finishedCount: Int, totalCount: Int) {
        record(.delegatePrefetched(finished: finishedCount, total: totalCount))
    }

    func imagePrefetcher(_ prefetcher: ImagePrefetcher, didFinishWithTotalCount totalCount: Int, skippedCount: Int) {
        record(.delegateFinished(total: totalCount, skipped: skippedCount))
    }
}

/// `count` PNG routes `/p<i>.png` (each `8+i` pixels wide) on the harness's origin.
func servePictures(_ h: ManagerHarness, _ count: Int, prefix: String = "p", delay: Duration = .zero) -> [URL] {
    (0..<count).map { index in
        let path = "/\(prefix)\(index).png"
        h.origin.setRoute(path, .data(ManagerFixtures.png(8 + index, 4), delay: delay))
        return h.origin.url(path)
    }
}

@Suite("Image prefetcher")
struct PrefetcherTests {
    @Test func sharedHasItsOwnManagerAndDefaults() {
        let prefetcher = ImagePrefetcher()
        #expect(prefetcher !== ImagePrefetcher.shared)
        #expect(ImagePrefetcher.shared.manager !== ImageManager.shared)
        #expect(ImagePrefetcher.shared.manager.imageCache as AnyObject === ImageCache.shared)
        #expect(prefetcher.maxConcurrentPrefetchCount == 3)
        #expect(prefetcher.options == .lowPriority)
        prefetcher.maxConcurrentPrefetchCount = 0
        #expect(prefetcher.maxConcurrentPrefetchCount == 1)
    }

    @Test func prefetchesMultipleImagesIntoTheCache() async throws {
        try await withManager { h in
            let urls = servePictures(h, 3)
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let recorder = PrefetchRecorder()
            let token = prefetcher.prefetchURLs(urls, progress: recorder.progress, completed: recorder.completed)
            #expect(token?.urls == urls)
            #expect(await waitUntil { !recorder.completions.isEmpty })
            try? await Task.sleep(for: .milliseconds(50))
            #expect(recorder.completions == [.completed(finished: 3, skipped: 0)])
            #expect(recorder.progressCalls == (1...3).map { .progress(finished: $0, total: 3) })
            for (index, url) in urls.enumerated() {
                #expect(h.cache.imageFromMemoryCache(forKey: url.absoluteString)?.width == 8 + index)
            }
            #expect(prefetcher.runningTokenCount == 0)
        }
    }

    @Test func anEmptyListCompletesWithZerosAtOnce() {
        let recorder = PrefetchRecorder()
        let token = ImagePrefetcher().prefetchURLs([], completed: recorder.completed)
        #expect(token == nil)
        #expect(recorder.calls == [.completed(finished: 0, skipped: 0)])
    }

    @Test func overlappingRequestsFromSeveralTasksAreIndependent() async throws {
        try await withManager { h in
            let urls = servePictures(h, 6)
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let first = PrefetchRecorder(), second = PrefetchRecorder()
            async let a: Void = Task.detached {
                _ = prefetcher.prefetchURLs(Array(urls[0..<4]), progress: first.progress, completed: first.completed)
            }.value
            async let b: Void = Task.detached {
                _ = prefetcher.prefetchURLs(Array(urls[2..<6]), progress: second.progress, completed: second.completed)
            }.value
            _ = await (a, b)
            #expect(await waitUntil { first.completions.count == 1 && second.completions.count == 1 })
            for recorder in [first, second] {
                #expect(recorder.completions == [.completed(finished: 4, skipped: 0)])
                #expect(recorder.progressCalls == (1...4).map { .progress(finished: $0, total: 4) })
            }
        }
    }

    @Test func delegateHearsFirstWithAggregateCounts() async throws {
        try await withManager { h in
            var urls = servePictures(h, 17)
            urls += (0..<3).map { h.origin.url("/missing\($0).png") }
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let recorder = PrefetchRecorder()
            prefetcher.delegate = recorder
            prefetcher.prefetchURLs(urls, progress: recorder.progress, completed: recorder.completed)
            #expect(await waitUntil { !recorder.completions.isEmpty })
            let calls = recorder.calls
            // Every progress call directly follows the delegate's call with the same counts.
            for (index, call) in calls.enumerated() {
                guard case .progress(let finished, let total) = call else { continue }
                let before = calls[..<index].last { if case .delegatePrefetched = $0 { return true } else { return false } }
                #expect(before == .delegatePrefetched(finished: finished, total: total))
            }
            #expect(calls.suffix(3) == [.delegateFinished(total: 20, skipped: 3), .progress(finished: 20, total: 20),
                                        .completed(finished: 20, skipped: 3)])
        }
    }

    // The cancel must land within the origin's 3 s delay; an instrumented run can take longer.
    @Test(.timingBoundUnderSanitizer) func cancellingATokenStopsItAtOnceWithoutCompletion() async throws {
        try await withManager { h in
            // Slow enough that nothing finishes before the cancel, even on a loaded machine.
            let urls = servePictures(h, 6, delay: .seconds(3))
            let prefetcher = ImagePrefetcher(manager: h.manager)
            prefetcher.maxConcurrentPrefetchCount = 2
            let recorder = PrefetchRecorder()
            let token = try #require(prefetcher.prefetchURLs(urls, progress: recorder.progress,
                                                             completed: recorder.completed))
            #expect(prefetcher.runningTokenCount == 1)
            #expect(await waitUntil { h.origin.stats.requests.count == 2 })
            token.cancel()
            #expect(prefetcher.runningTokenCount == 0)
            #expect(token.isCancelled)
            #expect(await waitUntil { !h.manager.isRunning })
            try? await Task.sleep(for: .milliseconds(100))
            #expect(recorder.calls.isEmpty)
            #expect(h.origin.stats.requests.count == 2)
        }
    }

    @Test func downloaderCancellingUnderneathStillCompletes() async throws {
        try await withManager { h in
            let urls = (0..<3).map { index -> URL in
                var stalled = TestOriginRoute.data(ManagerFixtures.png(256, 256))
                stalled.mode = .stallAfter(100)
                h.origin.setRoute("/large\(index).png", stalled)
                return h.origin.url("/large\(index).png")
            }
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let recorder = PrefetchRecorder()
            prefetcher.prefetchURLs(urls, completed: recorder.completed)
            #expect(await waitUntil { h.origin.stats.requests.count == 3 })
            h.downloader.cancelAllDownloads()
            #expect(await waitUntil { !recorder.completions.isEmpty })
            #expect(recorder.completions == [.completed(finished: 3, skipped: 3)])
        }
    }

    @Test func respectsTheConcurrencyLimitAndCountsDuplicates() async throws {
        try await withManager { h in
            let urls = servePictures(h, 4, delay: .milliseconds(40))
            let prefetcher = ImagePrefetcher(manager: h.manager)
            prefetcher.maxConcurrentPrefetchCount = 2
            let recorder = PrefetchRecorder()
            prefetcher.prefetchURLs(urls + urls, options: [.fromLoaderOnly], progress: recorder.progress,
                                    completed: recorder.completed)
            #expect(await waitUntil { !recorder.completions.isEmpty })
            #expect(recorder.completions == [.completed(finished: 8, skipped: 0)])
            #expect(recorder.progressCalls.count == 8)
            #expect(h.origin.stats.maxInFlight <= 2)
        }
    }

    @Test func cancelPrefetchingCancelsEveryRequest() async throws {
        try await withManager { h in
            let urls = servePictures(h, 4, delay: .milliseconds(300))
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let first = PrefetchRecorder(), second = PrefetchRecorder()
            let a = prefetcher.prefetchURLs(Array(urls[0..<2]), completed: first.completed)
            let b = prefetcher.prefetchURLs(Array(urls[2..<4]), completed: second.completed)
            #expect(prefetcher.runningTokenCount == 2)
            prefetcher.cancelPrefetching()
            #expect(prefetcher.runningTokenCount == 0)
            #expect(a?.isCancelled == true && b?.isCancelled == true)
            #expect(await waitUntil { !h.manager.isRunning })
            try? await Task.sleep(for: .milliseconds(50))
            #expect(first.calls.isEmpty && second.calls.isEmpty)
        }
    }

    @Test func callbacksRunOnTheChosenQueue() async throws {
        try await withManager { h in
            let urls = servePictures(h, 2)
            let queue = CallbackQueue(DispatchQueue(label: "prefetch-test"))
            let prefetcher = ImagePrefetcher(manager: h.manager)
            prefetcher.callbackQueue = queue
            let onQueue = Mutex<[Bool]>([])
            prefetcher.prefetchURLs(urls, progress: { _, _ in onQueue.withLock { $0.append(queue.isCurrent) } },
                                    completed: { _, _ in onQueue.withLock { $0.append(queue.isCurrent) } })
            #expect(await waitUntil { onQueue.withLock { $0.count } == 3 })
            #expect(onQueue.withLock { $0 } == [true, true, true])
        }
    }

    @Test func asyncPrefetchReturnsTheCounts() async throws {
        try await withManager { h in
            let urls = servePictures(h, 3) + [h.origin.url("/absent.png")]
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let counts = await prefetcher.prefetch(urls)
            #expect(counts.finished == 4 && counts.skipped == 1)
            let empty = await prefetcher.prefetch([])
            #expect(empty.finished == 0 && empty.skipped == 0)
        }
    }

    // The cancel must land within the origin's 2 s delay; an instrumented run can take longer.
    @Test(.timingBoundUnderSanitizer) func cancellingTheAsyncPrefetchReturnsEarly() async throws {
        try await withManager { h in
            let urls = servePictures(h, 3, delay: .milliseconds(2_000))
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let task = Task { await prefetcher.prefetch(urls) }
            #expect(await waitUntil { h.origin.stats.requests.count == 3 })
            task.cancel()
            let counts = await task.value
            #expect(counts.finished == 0)
            #expect(prefetcher.runningTokenCount == 0)
            #expect(await waitUntil { !h.manager.isRunning })
        }
    }

    @Test func manyMemoryHitsDeliveredInlineCompleteWithoutRecursion() async throws {
        try await withManager { h in
            let image = Image(bitmap: TestBitmaps.gradient(width: 2, height: 2))
            let urls = (0..<2_000).map { h.origin.url("/hit\($0).png") }
            for url in urls { h.cache.storeImageToMemory(image, forKey: url.absoluteString) }
            var context = WebImageContext()
            context.callbackQueue = .immediate
            let recorder = PrefetchRecorder()
            ImagePrefetcher(manager: h.manager).prefetchURLs(urls, context: context, completed: recorder.completed)
            // Every load hit memory and reported inline, so the request is complete on return.
            #expect(recorder.calls == [.completed(finished: 2_000, skipped: 0)])
            #expect(h.origin.stats.requests.isEmpty)
        }
    }
}
