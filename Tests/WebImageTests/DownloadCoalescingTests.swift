import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Download coalescing and cancellation")
struct DownloadCoalescingTests {
    let picture = TestImageCoder.encode(width: 40, height: 20)

    @Test func hundredCallersShareOneRequest() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader { origin, downloader in
            let gate = TestGate()
            origin.setRoute("/shared.img", .data(picture, mode: .gated(0, gate)))
            let recorders = (0..<100).map { _ in LoadRecorder() }
            let released = Counter()
            var tokens: [any ImageLoadCancellable] = []
            for recorder in recorders {
                let token = downloader.requestImage(with: origin.url("/shared.img"), options: [],
                                                    context: .testing(coder), progress: nil,
                                                    completion: recorder.completion(releasing: released))
                tokens.append(try #require(token))
            }
            gate.open()
            await waitForFinals(recorders)
            // The download has let go of every caller's completion: nothing more can arrive.
            await released.wait(for: 100, "released completions")
            #expect(origin.requestCount("/shared.img") == 1)
            for recorder in recorders {
                #expect(recorder.results.count == 1)
                #expect(recorder.finals.first?.image?.pixelSize == PixelSize(width: 40, height: 20))
            }
            #expect(coder.decodeCount == 1)
            #expect((tokens[0] as? ImageDownloadToken)?.metrics.callerCount == 100)
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    @Test func cancellingOneOfTwoEndsOnlyThatCaller() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader { origin, downloader in
            let gate = TestGate()
            origin.setRoute("/two.img", .data(picture, mode: .gated(0, gate)))
            let first = LoadRecorder(), second = LoadRecorder()
            let released = Counter()
            let token1 = downloader.requestImage(with: origin.url("/two.img"), options: [], context: .testing(coder),
                                                 progress: nil, completion: first.completion(releasing: released))
            _ = downloader.requestImage(with: origin.url("/two.img"), options: [], context: .testing(coder),
                                        progress: nil, completion: second.completion(releasing: released))
            token1?.cancel()
            token1?.cancel()
            #expect(await first.waitForFinal()?.error?.code == .cancelled)
            gate.open()
            #expect(await second.waitForFinal()?.image != nil)
            await released.wait(for: 2, "released completions")
            #expect(first.results.count == 1 && second.results.count == 1)
            #expect(origin.requestCount("/two.img") == 1)
        }
    }

    @Test func cancellingTheLastCallerCancelsTheHTTPRequest() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/stall.img", .data(picture, mode: .stallAfter(10)))
            let recorder = LoadRecorder()
            let token = downloader.requestImage(with: origin.url("/stall.img"), options: [],
                                                context: .testing(coder), progress: nil,
                                                completion: recorder.completion)
            await origin.wait("the request in flight") { $0.inFlight == 1 }
            #expect(downloader.currentDownloadCount == 1)
            token?.cancel()
            #expect(downloader.currentDownloadCount == 0)
            #expect(await recorder.waitForFinal()?.error?.code == .cancelled)
            await origin.wait("the response to be abandoned") { $0.abortedResponses == 1 }
        }
    }

    @Test func cancelThenRequestAgainSucceeds() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/again.img", .data(picture))
            let first = LoadRecorder()
            let token = downloader.requestImage(with: origin.url("/again.img"), options: [],
                                                context: .testing(coder), progress: nil,
                                                completion: first.completion)
            token?.cancel()
            let result = try await downloader.loadImage(origin.url("/again.img"), context: .testing(coder))
            #expect(result.image != nil)
            #expect(await first.waitForFinal()?.error?.code == .cancelled)
        }
    }

    @Test func aCallerAfterCompletionStartsAFreshDownload() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/seq.img", .data(picture))
            for _ in 0..<3 {
                let result = try await downloader.loadImage(origin.url("/seq.img"), context: .testing(coder))
                #expect(result.image != nil)
            }
            #expect(origin.requestCount("/seq.img") == 3)
        }
    }

    @Test func eachCallerGetsItsOwnThumbnailFromOneDownload() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader { origin, downloader in
            let gate = TestGate()
            origin.setRoute("/thumbs.img", .data(picture, mode: .gated(0, gate)))
            let sizes = [PixelSize(width: 20, height: 20), PixelSize(width: 10, height: 10), nil,
                         PixelSize(width: 20, height: 20)]
            let recorders = sizes.map { _ in LoadRecorder() }
            for (size, recorder) in zip(sizes, recorders) {
                downloader.requestImage(with: origin.url("/thumbs.img"), options: [],
                                        context: .testing(coder, thumbnail: size), progress: nil,
                                        completion: recorder.completion)
            }
            gate.open()
            await waitForFinals(recorders)
            let delivered = recorders.map { $0.finals.first?.image?.pixelSize }
            #expect(delivered == [PixelSize(width: 20, height: 10), PixelSize(width: 10, height: 5),
                                  PixelSize(width: 40, height: 20), PixelSize(width: 20, height: 10)])
            #expect(origin.requestCount("/thumbs.img") == 1)
            #expect(coder.decodeCount == 3)
        }
    }

    @Test func cancelAllEndsEveryCaller() async throws {
        let coder = TestImageCoder()
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        try await withOriginAndDownloader(config) { origin, downloader in
            for index in 0..<3 { origin.setRoute("/c\(index).img", .data(picture, mode: .stallAfter(5))) }
            let recorders = (0..<3).map { _ in LoadRecorder() }
            for (index, recorder) in recorders.enumerated() {
                downloader.requestImage(with: origin.url("/c\(index).img"), options: [], context: .testing(coder),
                                        progress: nil, completion: recorder.completion)
            }
            #expect(downloader.currentDownloadCount == 3)
            downloader.cancelAllDownloads()
            #expect(downloader.currentDownloadCount == 0)
            await waitForFinals(recorders)
            #expect(recorders.allSatisfy { $0.finals.first?.error?.code == .cancelled })
        }
    }

    /// Callers join one URL at every phase of its download: queued, running, decoding, and after
    /// it finished (a fresh download). Each phase is held until its callers have joined, so every
    /// run covers all four; every caller gets exactly one image.
    @Test func staggeredCallersNeverLoseACallback() async throws {
        let coder = HeldTestCoder()
        try await withOriginAndDownloader { origin, downloader in
            let body = TestGate()
            origin.setRoute("/stagger.img", .data(picture, mode: .gated(0, body)))
            let recorders = (0..<40).map { _ in LoadRecorder() }
            let released = Counter()
            var tokens: [ImageDownloadToken?] = []
            func join(_ range: Range<Int>) {
                for index in range {
                    tokens.append(downloader.requestImage(with: origin.url("/stagger.img"), options: [],
                                                          context: .testing(coder), progress: nil,
                                                          completion: recorders[index].completion(releasing: released))
                        as? ImageDownloadToken)
                }
            }
            downloader.isSuspended = true
            join(0..<10)                                  // queued
            downloader.isSuspended = false
            await origin.waitForRequest("/stagger.img")
            join(10..<20)                                 // running, before the body
            body.open()
            await coder.waitUntilDecoding()
            join(20..<30)                                 // decoding
            coder.open()
            await waitForFinals(Array(recorders[0..<30]))
            join(30..<40)                                 // after it finished: a new download
            await waitForFinals(recorders)
            await released.wait(for: 40, "released completions")
            for recorder in recorders {
                #expect(recorder.results.count == 1)
                #expect(recorder.finals.first?.image != nil)
            }
            #expect(tokens[0]?.metrics.callerCount == 30)
            #expect(tokens[39]?.metrics.callerCount == 10)
            #expect(origin.requestCount("/stagger.img") == 2)
        }
    }
}
