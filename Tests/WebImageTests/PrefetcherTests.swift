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

    private let log = Watched([Call]())

    var calls: [Call] { log.value }

    var progress: ImagePrefetchProgress { { finished, total in self.record(.progress(finished: finished, total: total)) } }
    var completed: ImagePrefetchCompletion { { finished, skipped in self.record(.completed(finished: finished, skipped: skipped)) } }

    var completions: [Call] { calls.filter(\.isCompletion) }
    var progressCalls: [Call] { calls.filter { if case .progress = $0 { return true } else { return false } } }

    func record(_ call: Call) { log.update { $0.append(call) } }

    /// Waits for the request's completion block.
    @discardableResult
    func waitForCompletion(sourceLocation: SourceLocation = #_sourceLocation) async -> [Call] {
        await log.wait("the prefetch to complete", sourceLocation: sourceLocation) { $0.contains(where: \.isCompletion) }
        return calls
    }

    func imagePrefetcher(_ prefetcher: ImagePrefetcher, didPrefetch url: URL, finishedCount: Int, totalCount: Int) {
        record(.delegatePrefetched(finished: finishedCount, total: totalCount))
    }

    func imagePrefetcher(_ prefetcher: ImagePrefetcher, didFinishWithTotalCount totalCount: Int, skippedCount: Int) {
        record(.delegateFinished(total: totalCount, skipped: skippedCount))
    }
}

extension PrefetchRecorder.Call {
    var isCompletion: Bool { if case .completed = self { true } else { false } }
}

/// `count` scripted PNGs `/p<i>.png` (each `8+i` pixels wide), each load shaped by `shape`.
func servePictures(_ h: ScriptedManagerHarness, _ count: Int, prefix: String = "p",
                   _ shape: (LoadScript) -> LoadScript = { $0 }) -> [URL] {
    (0..<count).map { index in h.serve("/\(prefix)\(index).png", shape(.png(8 + index, 4))) }
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
        try await withScriptedManager { h in
            let urls = servePictures(h, 3)
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let recorder = PrefetchRecorder()
            let token = try #require(prefetcher.prefetchURLs(urls, progress: recorder.progress,
                                                             completed: recorder.completed))
            #expect(token.urls == urls)
            await recorder.waitForCompletion()
            // The request has finished (its blocks are dropped) and its queue has run dry.
            #expect(prefetcher.runningTokenCount == 0 && token.finishedCount == 3)
            await token.callbackQueue.drained()
            #expect(recorder.completions == [.completed(finished: 3, skipped: 0)])
            #expect(recorder.progressCalls == (1...3).map { .progress(finished: $0, total: 3) })
            for (index, url) in urls.enumerated() {
                #expect(h.cache.imageFromMemoryCache(forKey: url.absoluteString)?.width == 8 + index)
            }
            #expect(h.loader.requests.allSatisfy { $0.options.contains(.lowPriority) })
        }
    }

    @Test func anEmptyListCompletesWithZerosAtOnce() {
        let recorder = PrefetchRecorder()
        let token = ImagePrefetcher().prefetchURLs([], completed: recorder.completed)
        #expect(token == nil)
        #expect(recorder.calls == [.completed(finished: 0, skipped: 0)])
    }

    @Test func overlappingRequestsFromSeveralTasksAreIndependent() async throws {
        try await withScriptedManager { h in
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
            await first.waitForCompletion()
            await second.waitForCompletion()
            await CallbackQueue.shared.drained()
            for recorder in [first, second] {
                #expect(recorder.completions == [.completed(finished: 4, skipped: 0)])
                #expect(recorder.progressCalls == (1...4).map { .progress(finished: $0, total: 4) })
            }
        }
    }

    @Test func delegateHearsFirstWithAggregateCounts() async throws {
        try await withScriptedManager { h in
            var urls = servePictures(h, 17)
            urls += (0..<3).map { h.url("/missing\($0).png") }
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let recorder = PrefetchRecorder()
            prefetcher.delegate = recorder
            prefetcher.prefetchURLs(urls, progress: recorder.progress, completed: recorder.completed)
            let calls = await recorder.waitForCompletion()
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

    @Test func cancellingATokenStopsItAtOnceWithoutCompletion() async throws {
        try await withScriptedManager { h in
            // Held at the loader: nothing can finish before the cancel.
            let urls = servePictures(h, 6) { $0.holding(.started) }
            let prefetcher = ImagePrefetcher(manager: h.manager)
            prefetcher.maxConcurrentPrefetchCount = 2
            let recorder = PrefetchRecorder()
            let token = try #require(prefetcher.prefetchURLs(urls, progress: recorder.progress,
                                                             completed: recorder.completed))
            #expect(prefetcher.runningTokenCount == 1)
            await h.loader.waitForHeld(2)
            h.drain()  // the query callbacks that made the requests have handed their tokens over
            token.cancel()
            #expect(prefetcher.runningTokenCount == 0)
            #expect(token.isCancelled)
            #expect(!h.manager.isRunning)
            #expect(h.loader.cancelCount(urls[0]) == 1 && h.loader.cancelCount(urls[1]) == 1)
            // The cancelled loads' ends have been handled (each would have started a queued URL).
            await token.callbackQueue.drained()
            h.drain()
            #expect(recorder.calls.isEmpty)
            #expect(h.loader.requestCount == 2)
        }
    }

    @Test func downloaderCancellingUnderneathStillCompletes() async throws {
        try await withScriptedManager { h in
            let urls = (0..<3).map { index in
                h.serve("/large\(index).png", LoadScript.png(256, 256).inChunks(100).holding(.beforeCompletion))
            }
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let recorder = PrefetchRecorder()
            prefetcher.prefetchURLs(urls, completed: recorder.completed)
            await h.loader.waitForHeld(3)
            h.loader.cancelAll()
            await recorder.waitForCompletion()
            #expect(recorder.completions == [.completed(finished: 3, skipped: 3)])
        }
    }

    @Test func respectsTheConcurrencyLimitAndCountsDuplicates() async throws {
        try await withScriptedManager { h in
            let urls = servePictures(h, 4) { $0.holding(.started) }
            let prefetcher = ImagePrefetcher(manager: h.manager)
            prefetcher.maxConcurrentPrefetchCount = 2
            let recorder = PrefetchRecorder()
            prefetcher.prefetchURLs(urls + urls, options: [.fromLoaderOnly], progress: recorder.progress,
                                    completed: recorder.completed)
            // Each round: two loads held at the loader and no third asked for; then both go on.
            for round in 1...4 {
                await h.loader.waitForHeld(2)
                h.drain()
                #expect(h.loader.requestCount == 2 * round)
                #expect(h.loader.inFlight == 2)
                h.loader.releaseAll()
            }
            await recorder.waitForCompletion()
            #expect(recorder.completions == [.completed(finished: 8, skipped: 0)])
            #expect(recorder.progressCalls.count == 8)
            #expect(h.loader.maxInFlight == 2)
            #expect(h.loader.requestCount == 8)
        }
    }

    @Test func cancelPrefetchingCancelsEveryRequest() async throws {
        try await withScriptedManager { h in
            let urls = servePictures(h, 4) { $0.holding(.started) }
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let first = PrefetchRecorder(), second = PrefetchRecorder()
            let a = prefetcher.prefetchURLs(Array(urls[0..<2]), completed: first.completed)
            let b = prefetcher.prefetchURLs(Array(urls[2..<4]), completed: second.completed)
            #expect(prefetcher.runningTokenCount == 2)
            prefetcher.cancelPrefetching()
            #expect(prefetcher.runningTokenCount == 0)
            #expect(a?.isCancelled == true && b?.isCancelled == true)
            #expect(!h.manager.isRunning)
            await CallbackQueue.shared.drained()
            h.drain()
            #expect(first.calls.isEmpty && second.calls.isEmpty)
            #expect(h.loader.inFlight == 0)
        }
    }

    @Test func callbacksRunOnTheChosenQueue() async throws {
        try await withScriptedManager { h in
            let urls = servePictures(h, 2)
            let queue = CallbackQueue(DispatchQueue(label: "prefetch-test"))
            let prefetcher = ImagePrefetcher(manager: h.manager)
            prefetcher.callbackQueue = queue
            let onQueue = Watched([Bool]())
            prefetcher.prefetchURLs(urls, progress: { _, _ in onQueue.update { $0.append(queue.isCurrent) } },
                                    completed: { _, _ in onQueue.update { $0.append(queue.isCurrent) } })
            await onQueue.wait("three callbacks") { $0.count == 3 }
            await queue.drained()
            #expect(onQueue.value == [true, true, true])
        }
    }

    @Test func asyncPrefetchReturnsTheCounts() async throws {
        try await withScriptedManager { h in
            let urls = servePictures(h, 3) + [h.url("/absent.png")]
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let counts = await prefetcher.prefetch(urls)
            #expect(counts.finished == 4 && counts.skipped == 1)
            let empty = await prefetcher.prefetch([])
            #expect(empty.finished == 0 && empty.skipped == 0)
        }
    }

    @Test func cancellingTheAsyncPrefetchReturnsEarly() async throws {
        try await withScriptedManager { h in
            let urls = servePictures(h, 3) { $0.holding(.started) }
            let prefetcher = ImagePrefetcher(manager: h.manager)
            let task = Task { await prefetcher.prefetch(urls) }
            await h.loader.waitForHeld(3)
            h.drain()  // the query callbacks that made the requests have handed their tokens over
            task.cancel()
            let counts = await task.value
            #expect(counts.finished == 0)
            #expect(prefetcher.runningTokenCount == 0)
            #expect(!h.manager.isRunning)
            #expect(urls.allSatisfy { h.loader.cancelCount($0) == 1 })
        }
    }

    @Test func manyMemoryHitsDeliveredInlineCompleteWithoutRecursion() async throws {
        try await withScriptedManager { h in
            let image = Image(bitmap: TestBitmaps.gradient(width: 2, height: 2))
            let urls = (0..<2_000).map { h.url("/hit\($0).png") }
            for url in urls { h.cache.storeImageToMemory(image, forKey: url.absoluteString) }
            var context = WebImageContext()
            context.callbackQueue = .immediate
            let recorder = PrefetchRecorder()
            ImagePrefetcher(manager: h.manager).prefetchURLs(urls, context: context, completed: recorder.completed)
            // Every load hit memory and reported inline, so the request is complete on return.
            #expect(recorder.calls == [.completed(finished: 2_000, skipped: 0)])
            #expect(h.loader.requestCount == 0)
        }
    }
}
