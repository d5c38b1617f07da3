import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image manager: cancellation at every stage")
struct ManagerCancelTests {
    /// Cancels `operation` twice, then checks the one completion is `cancelled`, nothing is
    /// running, and — once the operation has finished and its callback queue has drained — that
    /// it was the only result.
    func expectCancelledOnce(_ operation: ImageManagerOperation, _ recorder: ResultRecorder,
                             _ manager: ImageManager,
                             sourceLocation: SourceLocation = #_sourceLocation) async {
        operation.cancel()
        operation.cancel()
        #expect(!manager.isRunning, sourceLocation: sourceLocation)
        await recorder.waitForFinals(sourceLocation: sourceLocation)
        let results = await recorder.settled(operation, sourceLocation: sourceLocation)
        #expect(results.count == 1, sourceLocation: sourceLocation)
        #expect(results.first?.error?.code == .cancelled && results.first?.image == nil,
                sourceLocation: sourceLocation)
        #expect(operation.isCancelled, sourceLocation: sourceLocation)
    }

    @Test func cancelDuringTheDiskQuery() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/q.png", .png(8, 8))
            try h.cache.storeImageDataToDisk(Data(ManagerFixtures.png(8, 8)), forKey: url.absoluteString)
            let gate = h.caches.blockIO()
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, completed: recorder.completion)
            #expect(operation.cacheOperation != nil)
            await expectCancelledOnce(operation, recorder, h.manager)
            // The query finishes into a cancelled load: every queue it touches has run dry.
            gate.open()
            h.drain()
            #expect(await recorder.settled(operation).count == 1)
            #expect(h.loader.requestCount == 0)
        }
    }

    /// Replaces `cancelWhileQueuedNeverReachesTheOrigin`: the downloader's own queue is covered by
    /// LoadStressTests and DownloadSchedulingTests; here the manager must cancel the request it
    /// made, which then ends once, and a later release of the loader changes nothing.
    @Test func cancelWhileTheLoaderHoldsTheRequestCancelsIt() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/second.png", LoadScript.png(8, 8).holding(.started))
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, completed: recorder.completion)
            await h.loader.waitUntilHeld(url)
            h.drain()
            #expect(operation.loaderOperation != nil)
            await expectCancelledOnce(operation, recorder, h.manager)
            // The cancel reached the request inside `cancel()`: nothing is held any more.
            #expect(h.loader.cancelCount(url) == 1)
            #expect(h.loader.release(url) == 0)
            await h.loader.waitForFinal(url)
            #expect(h.loader.finals(for: url).map { $0.error?.code } == [.cancelled])
            #expect(await recorder.settled(operation).count == 1)
        }
    }

    /// Replaces `cancelWhileDownloadingClosesTheConnection` (closing the connection is the
    /// downloader's part, DownloadCoalescingTests): cancelled mid-body, the request is cancelled
    /// and its partial bytes go nowhere.
    @Test func cancelWhileDownloadingCancelsTheRequest() async throws {
        try await withScriptedManager { h in
            let body = ManagerFixtures.png(64, 64)
            let url = h.serve("/stall.png", LoadScript.body(body).inChunks(40).holding(.beforeCompletion))
            let recorder = ResultRecorder()
            let received = Watched<Int64>(0)
            let operation = h.manager.loadImage(with: url, progress: { got, _, _ in received.update { $0 = max($0, got) } },
                                                completed: recorder.completion)
            await h.loader.waitUntilHeld(url, at: .beforeCompletion)
            h.drain()  // the query callback that made the request has handed its token over
            #expect(received.value == 40)
            await expectCancelledOnce(operation, recorder, h.manager)
            #expect(h.loader.cancelCount(url) == 1)
            await h.loader.waitForFinal(url)
            #expect(h.loader.inFlight == 0)
            h.drain()
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) == nil)
            #expect(!h.cache.diskImageDataExists(forKey: url.absoluteString))
        }
    }

    @Test func cancelWhileTransformingStoresNothing() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/t.png", .png(8, 8))
            let transformer = GateTransformer()
            var context = WebImageContext()
            context.imageTransformer = transformer
            let released = TestGate()
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, context: context.probed(released),
                                                completed: recorder.completion)
            await transformer.waitUntilStarted()
            await expectCancelledOnce(operation, recorder, h.manager)
            transformer.open()
            // The transform returns into a cancelled load; once the load has let go of everything,
            // no store can still come.
            await released.wait("the load to release its context")
            h.drain()
            let key = try #require(h.manager.cacheKey(for: url, context: context))
            #expect(h.cache.memoryCache.get(forKey: key) == nil)
            #expect(!h.cache.diskImageDataExists(forKey: key))
            #expect(!h.cache.diskImageDataExists(forKey: url.absoluteString))
            #expect(await recorder.settled(operation).count == 1)
        }
    }

    @Test func cancelWhileDecodingStoresNothing() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/d.png", .png(8, 8))
            let coder = GateCoder()
            var context = WebImageContext()
            context.imageCoder = coder
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, context: context, completed: recorder.completion)
            await coder.waitUntilStarted()
            // The query's callback, which made the request and handed its token over, has run.
            h.drain()
            #expect(operation.loaderOperation != nil)
            await expectCancelledOnce(operation, recorder, h.manager)
            coder.open()
            // The decode finishes into a cancelled load: the loader delivers `cancelled` after it,
            // and the image goes nowhere.
            await h.loader.waitForFinal(url)
            #expect(coder.finished)
            #expect(h.loader.finals(for: url).map { $0.error?.code } == [.cancelled])
            h.drain()
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) == nil)
            #expect(!h.cache.diskImageDataExists(forKey: url.absoluteString))
            #expect(await recorder.settled(operation).count == 1)
            #expect(!h.manager.isRunning)
        }
    }

    @Test func taskCancellationCancelsAnAsyncLoad() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/slow.png", LoadScript.png(8, 8).holding(.started))
            let task = Task { await loadError(h.manager, url) }
            await h.loader.waitUntilHeld(url)
            h.drain()  // the query callback that made the request has handed its token over
            task.cancel()
            // The task's cancellation handler cancelled the load, and its request, in `cancel()`.
            #expect(h.loader.cancelCount(url) == 1)
            #expect(await task.value?.code == .cancelled)
            #expect(!h.manager.isRunning)
        }
    }

    /// A `refreshCached` memory hit answers its query synchronously: the load is at its loader
    /// request before the query is recorded, and the request must stay the stage `cancel()` stops.
    @Test func aRefreshOfAMemoryHitRecordsAndCancelsItsRequest() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/r.png", LoadScript.png(8, 8).holding(.started))
            h.cache.storeImageToMemory(Image(bitmap: TestBitmaps.gradient(width: 3, height: 3)),
                                       forKey: url.absoluteString)
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: .refreshCached, completed: recorder.completion)
            await h.loader.waitUntilHeld(url)
            #expect(operation.loaderOperation != nil)
            operation.cancel()
            #expect(h.loader.cancelCount(url) == 1)
            #expect(await recorder.waitForFinals().first?.cacheType == .memory)
        }
    }

    /// With `queryDiskDataSync` a miss answers the query before it is recorded: the loader request
    /// must stay the stage `cancel()` stops.
    @Test func aLoadWhoseQueryAnswersSynchronouslyRecordsAndCancelsItsRequest() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/s.png", LoadScript.png(8, 8).holding(.started))
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: .queryDiskDataSync, completed: recorder.completion)
            await h.loader.waitUntilHeld(url)
            #expect(operation.loaderOperation != nil)
            await expectCancelledOnce(operation, recorder, h.manager)
            #expect(h.loader.cancelCount(url) == 1)
        }
    }

    @Test func cancelAfterCompletionDoesNothing() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/done.png", .png(8, 8))
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, completed: recorder.completion)
            await recorder.waitForFinals()
            operation.cancel()
            let results = await recorder.settled(operation)
            #expect(results.count == 1 && results.first?.image != nil)
            #expect(!operation.isCancelled)
            #expect(h.loader.cancelCount(url) == 0)
        }
    }
}

/// A transformer that blocks until opened, to cancel a load mid-transform.
final class GateTransformer: ImageTransforming {
    private let semaphore = DispatchSemaphore(value: 0)
    private let started = TestGate()

    var transformerKey: String { "GateTransformer" }
    func open() { semaphore.signal() }

    func waitUntilStarted(sourceLocation: SourceLocation = #_sourceLocation) async {
        await started.wait("the transform to start", sourceLocation: sourceLocation)
    }

    func transform(_ image: Image, forKey key: String) -> Image? {
        started.open()
        semaphore.wait()
        return image
    }
}

/// A coder that blocks in `decode` until opened, then decodes with the shared coders: to cancel a
/// load while its bytes are being decoded.
final class GateCoder: ImageCoding {
    private let semaphore = DispatchSemaphore(value: 0)
    private let started = TestGate()
    private let didFinish = Atomic<Bool>(false)

    var finished: Bool { didFinish.load(ordering: .acquiring) }
    func open() { semaphore.signal() }

    func waitUntilStarted(sourceLocation: SourceLocation = #_sourceLocation) async {
        await started.wait("the decode to start", sourceLocation: sourceLocation)
    }

    func canDecode(_ data: Data) -> Bool { CodersManager.shared.canDecode(data) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        started.open()
        semaphore.wait()
        defer { didFinish.store(true, ordering: .releasing) }
        return try CodersManager.shared.decode(data, options: options)
    }

    func canEncode(to format: ImageFormat) -> Bool { CodersManager.shared.canEncode(to: format) }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        try CodersManager.shared.encode(image, as: format, options: options)
    }
}
