import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image manager: async API and event sequences")
struct ManagerAsyncTests {
    @Test func eventsReportMonotoneProgressThenTheImage() async throws {
        try await withScriptedManager { h in
            let body = ManagerFixtures.jpeg(300, 200)
            let chunks = Array(stride(from: 4096, to: body.count, by: 4096))
            var script = LoadScript.body(body, contentType: "image/jpeg")
            script.chunks = chunks
            let url = h.serve("/p.jpg", script)
            var progress: [Int64] = []
            var images: [ImageManagerResult] = []
            for try await event in h.manager.imageEvents(for: url) {
                switch event {
                case .progress(let received, _): progress.append(received)
                case .partial: break
                case .image(let result): images.append(result)
                }
            }
            #expect(images.count == 1 && images.first?.image?.pixelSize == PixelSize(width: 300, height: 200))
            #expect(progress == progress.sorted())
            #expect(progress == [0, 0] + chunks.map(Int64.init) + [Int64(body.count)])
        }
    }

    @Test func progressiveLoadYieldsPartialImagesBeforeTheFinalOne() async throws {
        try await withScriptedManager { h in
            let body = ManagerFixtures.png(256, 256)
            // The body pauses at its middle until a partial image has been seen.
            let url = h.serve("/prog.png", LoadScript.body(body, contentType: "image/png")
                .inChunks(body.count / 2).holding(.beforeCompletion))
            var partials = 0
            var final: ImageManagerResult?
            for try await event in h.manager.imageEvents(for: url, options: .progressiveLoad) {
                switch event {
                case .partial(let image):
                    #expect(final == nil)
                    #expect(image.pixelSize == PixelSize(width: 256, height: 256))
                    partials += 1
                    await h.loader.waitUntilHeld(url, at: .beforeCompletion)
                    #expect(h.loader.release(url) == 1)
                case .image(let result): final = result
                case .progress: break
                }
            }
            #expect(partials == 1)
            #expect(final?.image?.isPartial == false)
        }
    }

    @Test func eventsThrowTheLoadsError() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/e.png", .status(500))
            do {
                for try await _ in h.manager.imageEvents(for: url) {}
                Issue.record("expected an error")
            } catch let error as WebImageError {
                #expect(error.code == .invalidDownloadStatusCode && error.httpStatus == 500)
            }
        }
    }

    @Test func leavingTheSequenceEarlyCancelsTheLoad() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/s.png", LoadScript.png(64, 64).inChunks(40).holding(.beforeCompletion))
            for try await event in h.manager.imageEvents(for: url) {
                if case .progress(let received, _) = event, received > 0 {
                    h.drain()  // the query callback that made the request has handed its token over
                    break
                }
            }
            // Ending the iteration cancelled the load, and with it the loader's request.
            #expect(!h.manager.isRunning)
            #expect(h.loader.cancelCount(url) == 1)
            await h.loader.waitForFinal(url)
            #expect(h.loader.inFlight == 0)
        }
    }

    @Test func completionsRunOnTheContextsCallbackQueue() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/q.png", .png(4, 4))
            let queue = DispatchQueue(label: "test.manager.callbacks")
            let callbackQueue = CallbackQueue(queue)
            var context = WebImageContext()
            context.callbackQueue = callbackQueue
            let onQueue = CallRecorder<Bool>()
            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, context: context) { result in
                onQueue.record(callbackQueue.isCurrent)
                recorder.completion(result)
            }
            await recorder.waitForFinals()
            #expect(onQueue.count == 1 && onQueue.last == true)
        }
    }

    @Test func memoryHitIsSynchronousWithAnImmediateCallbackQueue() async throws {
        try await withScriptedManager { h in
            let url = h.url("/mem.png")
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
        try await withScriptedManager { h in
            let url = h.url("/async-mem.png")
            h.cache.storeImageToMemory(Image(bitmap: Bitmap(width: 2, height: 2, fill: .white)), forKey: url.absoluteString)
            let result = try await h.manager.image(for: url)
            #expect(result.cacheType == .memory && result.image?.pixelSize == PixelSize(width: 2, height: 2))
            #expect(result.url == url && result.isFinished)
            #expect(h.loader.requestCount == 0)

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
