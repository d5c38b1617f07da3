import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image manager: cancellation at every stage")
struct ManagerCancelTests {
    /// Cancels `operation`, then checks the one completion is `cancelled` and nothing is running.
    func expectCancelledOnce(_ operation: ImageManagerOperation, _ recorder: ResultRecorder,
                             _ h: ManagerHarness) async {
        operation.cancel()
        operation.cancel()
        let finals = await recorder.waitForFinals()
        #expect(finals.count == 1)
        #expect(finals.first?.error?.code == .cancelled && finals.first?.image == nil)
        #expect(operation.isCancelled)
        #expect(await waitUntil { !h.manager.isRunning })
    }

    @Test func cancelDuringTheDiskQuery() async throws {
        try await withManager { h in
            let url = h.origin.url("/q.png")
            try h.cache.storeImageDataToDisk(Data(ManagerFixtures.png(8, 8)), forKey: url.absoluteString)
            let gate = h.caches.blockIO()
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, completed: recorder.completion)
            #expect(operation.cacheOperation != nil)
            await expectCancelledOnce(operation, recorder, h)
            gate.open()
            h.caches.drain()
            try? await Task.sleep(for: .milliseconds(50))
            #expect(recorder.results.count == 1)
        }
    }

    @Test func cancelWhileQueuedNeverReachesTheOrigin() async throws {
        var config = DownloaderConfig.default
        config.maxConcurrentDownloads = 1
        try await withManager(config) { h in
            var slow = TestOriginRoute.data(ManagerFixtures.png(8, 8))
            slow.delay = .milliseconds(400)
            h.origin.setRoute("/first.png", slow)
            h.origin.setRoute("/second.png", .data(ManagerFixtures.png(8, 8)))
            let first = ResultRecorder()
            h.manager.loadImage(with: h.origin.url("/first.png"), completed: first.completion)
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: h.origin.url("/second.png"), completed: recorder.completion)
            #expect(await waitUntil { operation.loaderOperation != nil })
            await expectCancelledOnce(operation, recorder, h)
            _ = await first.waitForFinals()
            try? await Task.sleep(for: .milliseconds(100))
            #expect(h.origin.requestCount("/second.png") == 0)
        }
    }

    @Test func cancelWhileDownloadingClosesTheConnection() async throws {
        try await withManager { h in
            var stalled = TestOriginRoute.data(ManagerFixtures.png(64, 64))
            stalled.mode = .stallAfter(40)
            h.origin.setRoute("/stall.png", stalled)
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: h.origin.url("/stall.png"), completed: recorder.completion)
            #expect(await waitUntil { h.origin.requestCount("/stall.png") == 1 })
            await expectCancelledOnce(operation, recorder, h)
            #expect(await waitUntil { h.origin.stats.connectionsClosedByClient >= 1 })
        }
    }

    @Test func cancelWhileTransformingStoresNothing() async throws {
        try await withManager { h in
            h.origin.setRoute("/t.png", .data(ManagerFixtures.png(8, 8)))
            let transformer = GateTransformer()
            var context = WebImageContext()
            context.imageTransformer = transformer
            let url = h.origin.url("/t.png")
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, context: context, completed: recorder.completion)
            #expect(await waitUntil { transformer.started })
            await expectCancelledOnce(operation, recorder, h)
            transformer.open()
            try? await Task.sleep(for: .milliseconds(100))
            h.caches.drain()
            let key = try #require(h.manager.cacheKey(for: url, context: context))
            #expect(h.cache.memoryCache.get(forKey: key) == nil)
            #expect(!h.cache.diskImageDataExists(forKey: key))
            #expect(recorder.results.count == 1)
        }
    }

    @Test func cancelWhileDecodingStoresNothing() async throws {
        try await withManager { h in
            h.origin.setRoute("/d.png", .data(ManagerFixtures.png(8, 8), contentType: "image/png"))
            let coder = GateCoder()
            var context = WebImageContext()
            context.imageCoder = coder
            let url = h.origin.url("/d.png")
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, context: context, completed: recorder.completion)
            #expect(await waitUntil { coder.started })
            await expectCancelledOnce(operation, recorder, h)
            coder.open()
            // The decode finishes into a cancelled load: its image goes nowhere.
            #expect(await waitUntil { h.downloader.currentDownloadCount == 0 })
            try? await Task.sleep(for: .milliseconds(100))
            h.caches.drain()
            #expect(coder.finished)
            #expect(h.cache.memoryCache.get(forKey: url.absoluteString) == nil)
            #expect(!h.cache.diskImageDataExists(forKey: url.absoluteString))
            #expect(recorder.results.count == 1)
            #expect(!h.manager.isRunning)
        }
    }

    @Test func taskCancellationCancelsAnAsyncLoad() async throws {
        try await withManager { h in
            var slow = TestOriginRoute.data(ManagerFixtures.png(8, 8))
            slow.delay = .seconds(5)
            h.origin.setRoute("/slow.png", slow)
            let url = h.origin.url("/slow.png")
            let task = Task { await loadError(h.manager, url) }
            #expect(await waitUntil { h.origin.requestCount("/slow.png") == 1 })
            task.cancel()
            #expect(await task.value?.code == .cancelled)
            #expect(await waitUntil { !h.manager.isRunning })
        }
    }

    @Test func cancelAfterCompletionDoesNothing() async throws {
        try await withManager { h in
            h.origin.setRoute("/done.png", .data(ManagerFixtures.png(8, 8)))
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: h.origin.url("/done.png"), completed: recorder.completion)
            _ = await recorder.waitForFinals()
            operation.cancel()
            try? await Task.sleep(for: .milliseconds(50))
            #expect(recorder.results.count == 1 && recorder.results.first?.image != nil)
            #expect(!operation.isCancelled)
        }
    }
}

/// A transformer that blocks until opened, to cancel a load mid-transform.
final class GateTransformer: ImageTransforming {
    private let semaphore = DispatchSemaphore(value: 0)
    private let didStart = Atomic<Bool>(false)

    var transformerKey: String { "GateTransformer" }
    var started: Bool { didStart.load(ordering: .acquiring) }
    func open() { semaphore.signal() }

    func transform(_ image: Image, forKey key: String) -> Image? {
        didStart.store(true, ordering: .releasing)
        semaphore.wait()
        return image
    }
}

/// A coder that blocks in `decode` until opened, then decodes with the shared coders: to cancel a
/// load while its bytes are being decoded.
final class GateCoder: ImageCoding {
    private let semaphore = DispatchSemaphore(value: 0)
    private let didStart = Atomic<Bool>(false)
    private let didFinish = Atomic<Bool>(false)

    var started: Bool { didStart.load(ordering: .acquiring) }
    var finished: Bool { didFinish.load(ordering: .acquiring) }
    func open() { semaphore.signal() }

    func canDecode(_ data: Data) -> Bool { CodersManager.shared.canDecode(data) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        didStart.store(true, ordering: .releasing)
        semaphore.wait()
        defer { didFinish.store(true, ordering: .releasing) }
        return try CodersManager.shared.decode(data, options: options)
    }

    func canEncode(to format: ImageFormat) -> Bool { CodersManager.shared.canEncode(to: format) }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        try CodersManager.shared.encode(image, as: format, options: options)
    }
}
