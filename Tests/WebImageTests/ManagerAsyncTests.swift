import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image manager: async API and event sequences")
struct ManagerAsyncTests {
    @Test func eventsReportMonotoneProgressThenTheImage() async throws {
        try await withManager { h in
            let body = ManagerFixtures.jpeg(300, 200)
            var route = TestOriginRoute.data(body, contentType: "image/jpeg")
            route.mode = .chunked(4096)
            h.origin.setRoute("/p.jpg", route)
            var progress: [Int64] = []
            var images: [ImageManagerResult] = []
            for try await event in h.manager.imageEvents(for: h.origin.url("/p.jpg")) {
                switch event {
                case .progress(let received, _): progress.append(received)
                case .partial: break
                case .image(let result): images.append(result)
                }
            }
            #expect(images.count == 1 && images.first?.image?.pixelSize == PixelSize(width: 300, height: 200))
            #expect(progress == progress.sorted())
            #expect(progress.last == Int64(body.count))
        }
    }

    @Test func progressiveLoadYieldsPartialImagesBeforeTheFinalOne() async throws {
        try await withManager { h in
            let body = ManagerFixtures.png(256, 256)
            // The body pauses at its middle until a partial image has been seen.
            let gate = TestGate()
            var route = TestOriginRoute.data(body, contentType: "image/png")
            route.mode = .gated(body.count / 2, gate)
            h.origin.setRoute("/prog.png", route)
            var partials = 0
            var final: ImageManagerResult?
            for try await event in h.manager.imageEvents(for: h.origin.url("/prog.png"), options: .progressiveLoad) {
                switch event {
                case .partial(let image):
                    #expect(final == nil)
                    #expect(image.pixelSize == PixelSize(width: 256, height: 256))
                    partials += 1
                    gate.open()
                case .image(let result): final = result
                case .progress: break
                }
            }
            #expect(partials >= 1)
            #expect(final?.image?.isPartial == false)
        }
    }

    @Test func eventsThrowTheLoadsError() async throws {
        try await withManager { h in
            h.origin.setRoute("/e.png", .status(500))
            do {
                for try await _ in h.manager.imageEvents(for: h.origin.url("/e.png")) {}
                Issue.record("expected an error")
            } catch let error as WebImageError {
                #expect(error.code == .invalidDownloadStatusCode && error.httpStatus == 500)
            }
        }
    }

    @Test func leavingTheSequenceEarlyCancelsTheLoad() async throws {
        try await withManager { h in
            var stalled = TestOriginRoute.data(ManagerFixtures.png(64, 64))
            stalled.mode = .stallAfter(40)
            h.origin.setRoute("/s.png", stalled)
            for try await event in h.manager.imageEvents(for: h.origin.url("/s.png")) {
                if case .progress(let received, _) = event, received > 0 { break }
            }
            #expect(await waitUntil { !h.manager.isRunning })
        }
    }

    @Test func completionsRunOnTheContextsCallbackQueue() async throws {
        try await withManager { h in
            h.origin.setRoute("/q.png", .data(ManagerFixtures.png(4, 4)))
            let queue = DispatchQueue(label: "test.manager.callbacks")
            let callbackQueue = CallbackQueue(queue)
            var context = WebImageContext()
            context.callbackQueue = callbackQueue
            let onQueue = CallRecorder<Bool>()
            let recorder = ResultRecorder()
            h.manager.loadImage(with: h.origin.url("/q.png"), context: context) { result in
                onQueue.record(callbackQueue.isCurrent)
                recorder.completion(result)
            }
            _ = await recorder.waitForFinals()
            #expect(onQueue.last == true)
        }
    }

    @Test func memoryHitIsSynchronousWithAnImmediateCallbackQueue() async throws {
        try await withManager { h in
            let url = h.origin.url("/mem.png")
            h.cache.storeImageToMemory(Image(bitmap: Bitmap(width: 3, height: 3, fill: .black)), forKey: url.absoluteString)
            var context = WebImageContext()
            context.callbackQueue = .immediate
            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, context: context, completed: recorder.completion)
            #expect(recorder.results.count == 1 && recorder.results.first?.cacheType == .memory)
            #expect(!h.manager.isRunning)
        }
    }

    @Test func asyncMemoryHitsAndBadURLsAnswerWithoutSuspending() async throws {
        try await withManager { h in
            let url = h.origin.url("/async-mem.png")
            h.cache.storeImageToMemory(Image(bitmap: Bitmap(width: 2, height: 2, fill: .white)), forKey: url.absoluteString)
            let result = try await h.manager.image(for: url)
            #expect(result.cacheType == .memory && result.image?.pixelSize == PixelSize(width: 2, height: 2))
            #expect(result.url == url && result.isFinished)
            #expect(h.origin.requestCount("/async-mem.png") == 0)

            await #expect(throws: WebImageError.self) { try await h.manager.image(for: nil) }
            let relative = URL(string: "just-a-path/x.png")
            do {
                _ = try await h.manager.image(for: relative)
                Issue.record("a relative URL loaded")
            } catch let error as WebImageError {
                #expect(error.code == .invalidURL && error.url == relative)
            }
            #expect(!h.manager.isRunning)
        }
    }
}
