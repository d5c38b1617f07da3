import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The start rate limit, on a test clock: the burst goes at once, then one start per token, in
/// priority order; checked by what the origin and the downloader saw, never by elapsed time.
@Suite("Download rate limit")
struct DownloadRateLimitTests {
    let picture = TestImageCoder.encode(width: 4, height: 4)

    private func config(_ limit: RequestRateLimit?, clock: TestClock) -> DownloaderConfig {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 20
        config.maxConcurrentDownloadsPerHost = 20
        config.rateLimit = limit
        config.clock = clock
        return config
    }

    @Test func theBurstStartsAtOnceThenOneStartPerToken() async throws {
        let clock = TestClock(.manual)
        try await withOriginAndDownloader(config(RequestRateLimit(requestsPerSecond: 10, burst: 3), clock: clock)) { origin, downloader in
            let gate = TestGate()
            let recorders = (0..<6).map { _ in LoadRecorder() }
            for (index, recorder) in recorders.enumerated() {
                origin.setRoute("/r\(index).img", .data(picture, mode: .gated(0, gate)))
                downloader.requestImage(with: origin.url("/r\(index).img"), options: [], context: .testing(TestImageCoder()),
                                        progress: nil, completion: recorder.completion)
            }
            // Three tokens: three starts, then a wake-up for the next token (a tenth of a second).
            await origin.waitForRequests(3)
            await clock.waitForSleeps(1)
            #expect(clock.requestedSleeps == [.milliseconds(100)])
            #expect(origin.stats.requests.count == 3)

            for started in 4...6 {
                clock.advance(by: .milliseconds(100))
                await origin.waitForRequests(started)
                if started < 6 {
                    // The start that used the token asked for the next one: until the clock moves,
                    // nothing else can start.
                    await clock.waitForSleeps(started - 2)
                    #expect(origin.stats.requests.count == started)
                }
            }
            gate.open()
            await waitForFinals(recorders)
            #expect(recorders.allSatisfy { $0.finals.first?.image != nil })
        }
    }

    @Test func waitingDownloadsStartInPriorityOrder() async throws {
        let clock = TestClock(.manual)
        try await withOriginAndDownloader(config(RequestRateLimit(requestsPerSecond: 1, burst: 1), clock: clock)) { origin, downloader in
            let gate = TestGate()
            let paths = ["/first.img", "/low.img", "/high.img"]
            for path in paths { origin.setRoute(path, .data(picture, mode: .gated(0, gate))) }
            let recorders = paths.map { _ in LoadRecorder() }
            let options: [WebImageOptions] = [[], .lowPriority, .highPriority]
            for (index, path) in paths.enumerated() {
                downloader.requestImage(with: origin.url(path), options: options[index], context: .testing(TestImageCoder()),
                                        progress: nil, completion: recorders[index].completion)
            }
            await origin.waitForRequests(1)
            await clock.waitForSleeps(1)
            clock.advance(by: .seconds(1))
            await origin.waitForRequests(2)
            #expect(origin.stats.requests.map(\.path) == ["/first.img", "/high.img"])
            await clock.waitForSleeps(2)
            clock.advance(by: .seconds(1))
            await origin.waitForRequests(3)
            #expect(origin.stats.requests.map(\.path) == ["/first.img", "/high.img", "/low.img"])
            gate.open()
            await waitForFinals(recorders)
        }
    }

    @Test func removingTheLimitStartsEveryWaitingDownload() async throws {
        let clock = TestClock(.manual)
        try await withOriginAndDownloader(config(RequestRateLimit(requestsPerSecond: 1, burst: 2), clock: clock)) { origin, downloader in
            let gate = TestGate()
            let recorders = (0..<5).map { _ in LoadRecorder() }
            for (index, recorder) in recorders.enumerated() {
                origin.setRoute("/u\(index).img", .data(picture, mode: .gated(0, gate)))
                downloader.requestImage(with: origin.url("/u\(index).img"), options: [], context: .testing(TestImageCoder()),
                                        progress: nil, completion: recorder.completion)
            }
            await origin.waitForRequests(2)
            await clock.waitForSleeps(1)
            #expect(origin.stats.requests.count == 2)
            downloader.config.rateLimit = nil
            await origin.waitForRequests(5)
            gate.open()
            await waitForFinals(recorders)
            #expect(recorders.allSatisfy { $0.finals.first?.image != nil })
        }
    }

    @Test func theBucketRefillsUpToTheBurst() {
        let clock = TestClock(.manual)
        let pacer = TokenBucketPacer(limit: RequestRateLimit(requestsPerSecond: 4, burst: 2), clock: clock)
        #expect(pacer.take() == nil && pacer.take() == nil)
        #expect(pacer.take() == .milliseconds(250))
        clock.advance(by: .milliseconds(125))
        #expect(pacer.take() == .milliseconds(125), "half a token has come back")
        clock.advance(by: .seconds(10))
        #expect(pacer.take() == nil && pacer.take() == nil, "a long quiet period refills only the burst")
        #expect(pacer.take() != nil)
    }
}
