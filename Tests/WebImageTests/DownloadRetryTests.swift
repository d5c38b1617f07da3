import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Retries against the loopback origin: what is retried, how long it waits (on a test clock), and
/// that a retry is invisible to the caller except through progress and metrics.
@Suite("Download retries")
struct DownloadRetryTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 6, height: 4)

    /// A downloader whose retries follow `strategy` and wait on `clock`.
    private func config(_ strategy: RetryStrategy?, clock: TestClock) -> DownloaderConfig {
        var config = DownloaderConfig()
        config.retryStrategy = strategy
        config.clock = clock
        return config
    }

    /// Serves `failures` in turn, then the picture.
    private func failThenServe(_ origin: TestOrigin, _ path: String, _ failures: [TestOriginRoute]) {
        origin.setRoutes(path, failures + [.data(picture)])
    }

    /// The final result of one load, failures included.
    private func load(_ downloader: ImageDownloader, _ url: URL, _ context: WebImageContext) async -> ImageLoadResult? {
        let recorder = LoadRecorder()
        downloader.requestImage(with: url, options: [], context: context, progress: nil, completion: recorder.completion)
        return await recorder.waitForFinal()
    }

    private func status(_ code: Int, retryAfter: String? = nil) -> TestOriginRoute {
        var route = TestOriginRoute.status(code)
        if let retryAfter { route.headers = [("Retry-After", retryAfter)] }
        return route
    }

    @Test func a503WithRetryAfterIsRetriedAfterTheWaitTheServerAsked() async throws {
        let clock = TestClock()
        try await withOriginAndDownloader(config(RetryStrategy(maxRetries: 3), clock: clock)) { origin, downloader in
            failThenServe(origin, "/busy.img", [status(503, retryAfter: "2"), status(429, retryAfter: "1")])
            let recorder = LoadRecorder()
            let token = try #require(downloader.requestImage(with: origin.url("/busy.img"), options: [],
                                                             context: .testing(coder), progress: nil,
                                                             completion: recorder.completion) as? ImageDownloadToken)
            let result = await recorder.waitForFinal()
            #expect(result?.image?.pixelSize == PixelSize(width: 6, height: 4))
            #expect(result?.data == Data(picture))
            #expect(recorder.finals.count == 1, "a retry is not a result")
            #expect(origin.requestCount("/busy.img") == 3)
            #expect(clock.requestedSleeps == [.seconds(2), .seconds(1)])
            #expect(token.metrics.retryCount == 2)
            #expect(token.metrics.statusCode == 200)
        }
    }

    @Test func everyRetriedStatusAndAHangUpAreRetriedWithBackoff() async throws {
        let clock = TestClock()
        let strategy = RetryStrategy(maxRetries: 7, backoff: .exponential(base: 0.5), jitter: false, maxDelay: 10)
        try await withOriginAndDownloader(config(strategy, clock: clock)) { origin, downloader in
            let failures = [408, 500, 502, 503, 504, 429].map { status($0) } + [.hangUp]
            failThenServe(origin, "/flaky.img", failures)
            let result = await load(downloader, origin.url("/flaky.img"), .testing(coder))
            #expect(result?.image != nil)
            #expect(origin.requestCount("/flaky.img") == 8)
            // 0.5 s doubling, capped at 10 s; a 503 or 429 without Retry-After keeps the backoff.
            let expected: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8),
                                        .seconds(10), .seconds(10)]
            #expect(clock.requestedSleeps == expected)
        }
    }

    @Test func aStalledBodyTimesOutAndTheRetrySucceeds() async throws {
        let clock = TestClock()
        var config = config(RetryStrategy(maxRetries: 1), clock: clock)
        // The stall is the behaviour under test: the timeout ends the first attempt; the second
        // attempt, whose body arrives at once, has the whole timeout to spare (3 s: a loaded
        // machine running every suite at once can leave the origin's thread idle for a second).
        config.downloadTimeout = 3 * SanitizerRun.slowdown
        try await withOriginAndDownloader(config) { origin, downloader in
            failThenServe(origin, "/stall.img", [.data(picture, mode: .stallAfter(5))])
            let result = await load(downloader, origin.url("/stall.img"), .testing(coder))
            #expect(result?.image != nil, "\(String(describing: result?.error))")
            #expect(origin.requestCount("/stall.img") == 2)
            #expect(clock.requestedSleeps.count == 1)
        }
    }

    @Test func aFailureNoRetryCanFixIsNotRetried() async throws {
        let clock = TestClock()
        try await withOriginAndDownloader(config(RetryStrategy(maxRetries: 3), clock: clock)) { origin, downloader in
            origin.setRoute("/gone.img", .status(404))
            origin.setRoute("/bad.img", .data(Array("not an image".utf8)))
            let gone = await load(downloader, origin.url("/gone.img"), .testing(coder))
            #expect(gone?.error?.code == .invalidDownloadStatusCode && gone?.error?.httpStatus == 404)
            let bad = await load(downloader, origin.url("/bad.img"), .testing(coder))
            #expect(bad?.error?.code == .badImageData)
            #expect(origin.requestCount("/gone.img") == 1 && origin.requestCount("/bad.img") == 1)
            #expect(clock.requestedSleeps.isEmpty)
        }
    }

    @Test func retriesRunOutWithTheLastFailure() async throws {
        let clock = TestClock()
        try await withOriginAndDownloader(config(RetryStrategy(maxRetries: 2), clock: clock)) { origin, downloader in
            origin.setRoute("/down.img", .status(500))
            let result = await load(downloader, origin.url("/down.img"), .testing(coder))
            #expect(result?.error?.code == .invalidDownloadStatusCode && result?.error?.httpStatus == 500)
            #expect(origin.requestCount("/down.img") == 3)
            #expect(clock.requestedSleeps.count == 2)
            // Full jitter: each wait is somewhere between 0 and its backoff (0.5 s, then 1 s).
            #expect(zip(clock.requestedSleeps, [Duration.milliseconds(500), .seconds(1)]).allSatisfy { $0 >= .zero && $0 <= $1 })
        }
    }

    @Test func withoutAStrategyNothingIsRetriedAsSDWebImage() async throws {
        let clock = TestClock()
        try await withOriginAndDownloader(config(nil, clock: clock)) { origin, downloader in
            failThenServe(origin, "/once.img", [status(503, retryAfter: "1")])
            let result = await load(downloader, origin.url("/once.img"), .testing(coder))
            #expect(result?.error?.httpStatus == 503)
            #expect(origin.requestCount("/once.img") == 1)
            // The context turns retries on for one request.
            var context = WebImageContext.testing(coder)
            context.retryStrategy = RetryStrategy(maxRetries: 1)
            failThenServe(origin, "/ctx.img", [status(503, retryAfter: "1")])
            let retried = await load(downloader, origin.url("/ctx.img"), context)
            #expect(retried?.image != nil && origin.requestCount("/ctx.img") == 2)
        }
    }

    @Test func onlyGETIsRetried() async throws {
        let clock = TestClock()
        try await withOriginAndDownloader(config(RetryStrategy(maxRetries: 3), clock: clock)) { origin, downloader in
            origin.setRoute("/post.img", .status(503))
            var context = WebImageContext.testing(coder)
            context.requestModifier = DownloadRequestModifier { request in
                var request = request
                request.method = "POST"
                return request
            }
            let result = await load(downloader, origin.url("/post.img"), context)
            #expect(result?.error?.httpStatus == 503)
            #expect(origin.requestCount("/post.img") == 1)
            #expect(origin.requests("/post.img").first?.method == "POST")
        }
    }

    @Test func aHugeRetryAfterIsCappedAndGarbageFallsBackToTheBackoff() async throws {
        let clock = TestClock()
        let strategy = RetryStrategy(maxRetries: 3, backoff: .fixed(0.25), jitter: false, maxDelay: 5)
        try await withOriginAndDownloader(config(strategy, clock: clock)) { origin, downloader in
            failThenServe(origin, "/ra.img", [status(503, retryAfter: "31536000"), status(503, retryAfter: "soon"),
                                              status(429, retryAfter: "-3")])
            let result = await load(downloader, origin.url("/ra.img"), .testing(coder))
            #expect(result?.image != nil)
            #expect(clock.requestedSleeps == [.seconds(5), .milliseconds(250), .milliseconds(250)])
        }
    }

    @Test func cancellingDuringTheWaitEndsAtOnceAsCancelled() async throws {
        let clock = TestClock(.manual)
        try await withOriginAndDownloader(config(RetryStrategy(maxRetries: 3), clock: clock)) { origin, downloader in
            origin.setRoute("/wait.img", status(503, retryAfter: "60"))
            let recorder = LoadRecorder()
            let token = downloader.requestImage(with: origin.url("/wait.img"), options: [], context: .testing(coder),
                                                progress: nil, completion: recorder.completion)
            await clock.waitForSleeps(1)
            #expect(recorder.finals.isEmpty, "waiting to retry, not finished")
            token?.cancel()
            let result = await recorder.waitForFinal()
            #expect(result?.error?.code == .cancelled)
            #expect(origin.requestCount("/wait.img") == 1)
            // Cancelling the download's task ended its wait: nothing is left sleeping on the clock.
            #expect(clock.pendingSleeps == 0)
        }
    }

    @Test func progressStartsAgainOnARetry() async throws {
        let clock = TestClock()
        try await withOriginAndDownloader(config(RetryStrategy(maxRetries: 1), clock: clock)) { origin, downloader in
            var cut = TestOriginRoute.data(picture, mode: .closeAfter(picture.count / 2))
            cut.contentLength = picture.count
            failThenServe(origin, "/cut.img", [cut])
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/cut.img"), options: [], context: .testing(coder),
                                    progress: recorder.progressHandler, completion: recorder.completion)
            let result = await recorder.waitForFinal()
            #expect(result?.image != nil)
            #expect(origin.requestCount("/cut.img") == 2)
            let starts = recorder.progress.filter { $0.0 == 0 && $0.1 == Int64(picture.count) }
            #expect(starts.count == 2, "each attempt reports from 0: \(recorder.progress)")
            #expect(recorder.progress.last?.0 == Int64(picture.count))
        }
    }
}

