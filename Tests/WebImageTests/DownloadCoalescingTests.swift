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
            origin.setRoute("/shared.img", .data(picture, delay: .milliseconds(300)))
            let recorders = (0..<100).map { _ in LoadRecorder() }
            var tokens: [any ImageLoadCancellable] = []
            for recorder in recorders {
                let token = downloader.requestImage(with: origin.url("/shared.img"), options: [],
                                                    context: .testing(coder), progress: nil,
                                                    completion: recorder.completion)
                tokens.append(try #require(token))
            }
            #expect(await waitUntil { recorders.allSatisfy { !$0.finals.isEmpty } })
            try await Task.sleep(for: .milliseconds(100))
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
            origin.setRoute("/two.img", .data(picture, delay: .milliseconds(300)))
            let first = LoadRecorder(), second = LoadRecorder()
            let token1 = downloader.requestImage(with: origin.url("/two.img"), options: [], context: .testing(coder),
                                                 progress: nil, completion: first.completion)
            _ = downloader.requestImage(with: origin.url("/two.img"), options: [], context: .testing(coder),
                                        progress: nil, completion: second.completion)
            token1?.cancel()
            token1?.cancel()
            #expect(await waitUntil { !first.finals.isEmpty && !second.finals.isEmpty })
            #expect(first.finals.first?.error?.code == .cancelled)
            #expect(second.finals.first?.image != nil)
            try await Task.sleep(for: .milliseconds(100))
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
            #expect(await waitUntil { origin.stats.inFlight == 1 })
            #expect(downloader.currentDownloadCount == 1)
            token?.cancel()
            #expect(await waitUntil { !recorder.finals.isEmpty })
            #expect(recorder.finals.first?.error?.code == .cancelled)
            #expect(await waitUntil { origin.stats.abortedResponses == 1 })
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    @Test func cancelThenRequestAgainSucceeds() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/again.img", .data(picture, delay: .milliseconds(200)))
            let first = LoadRecorder()
            let token = downloader.requestImage(with: origin.url("/again.img"), options: [],
                                                context: .testing(coder), progress: nil,
                                                completion: first.completion)
            token?.cancel()
            let result = try await downloader.loadImage(origin.url("/again.img"), context: .testing(coder))
            #expect(result.image != nil)
            #expect(await waitUntil { !first.finals.isEmpty })
            #expect(first.finals.first?.error?.code == .cancelled)
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
            origin.setRoute("/thumbs.img", .data(picture, delay: .milliseconds(300)))
            let sizes = [PixelSize(width: 20, height: 20), PixelSize(width: 10, height: 10), nil,
                         PixelSize(width: 20, height: 20)]
            let recorders = sizes.map { _ in LoadRecorder() }
            for (size, recorder) in zip(sizes, recorders) {
                downloader.requestImage(with: origin.url("/thumbs.img"), options: [],
                                        context: .testing(coder, thumbnail: size), progress: nil,
                                        completion: recorder.completion)
            }
            #expect(await waitUntil { recorders.allSatisfy { !$0.finals.isEmpty } })
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
            #expect(await waitUntil { recorders.allSatisfy { !$0.finals.isEmpty } })
            #expect(recorders.allSatisfy { $0.finals.first?.error?.code == .cancelled })
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    @Test func staggeredCallersNeverLoseACallback() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/stagger.img", .data(picture, delay: .milliseconds(20)))
            let recorders = (0..<60).map { _ in LoadRecorder() }
            for (index, recorder) in recorders.enumerated() {
                if index % 6 == 0 { try await Task.sleep(for: .milliseconds(15)) }
                downloader.requestImage(with: origin.url("/stagger.img"), options: [], context: .testing(coder),
                                        progress: nil, completion: recorder.completion)
            }
            #expect(await waitUntil { recorders.allSatisfy { !$0.finals.isEmpty } })
            try await Task.sleep(for: .milliseconds(100))
            for recorder in recorders {
                #expect(recorder.results.count == 1)
                #expect(recorder.finals.first?.image != nil)
            }
        }
    }
}
