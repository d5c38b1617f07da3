import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The download timeout: a stalled response fails once the timeout has passed, never before it,
/// and long before the origin would have answered (its slow route waits 30 s). The upper bound is
/// the timeout plus 10 s: it tells a timeout that fired from one that did not, whatever else a
/// saturated 2-core machine runs (a 1 s bound failed there by 89 ms). The end is when the origin's event loop saw the downloader close
/// its connection, away from the cooperative pool that every other suite of the same run keeps
/// busy, so this suite needs no pass of its own. "Never before" is measured from before the request
/// (earlier than the downloader's timer can start); "within" from the connection's accept on the
/// origin's event loop (no earlier than the request went out).
@Suite("Download timeouts")
struct DownloadTimeoutTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 16, height: 16)
    static let timeout: Double = 1

    /// The download timeout under test, with a connect timeout long enough that a loaded machine
    /// never fails the connection itself (that would be a different timeout, whose connection the
    /// client's pool finishes and keeps idle).
    private static func config() -> DownloaderConfig {
        var config = DownloaderConfig()
        config.downloadTimeout = timeout
        config.connectTimeout = 30 * SanitizerRun.slowdown
        return config
    }

    /// At least the timeout; at most the timeout + 10 s (+ 10 s more for an instrumented run),
    /// which is still well before the slow route's 30 s.
    private static func expectWithinBound(_ times: (sinceRequest: Duration, sinceAccept: Duration)?,
                                          _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let times else {
            Issue.record("no connection times", sourceLocation: sourceLocation)
            return
        }
        let slack: Duration = SanitizerRun.name == nil ? .seconds(10) : .seconds(20)
        #expect(times.sinceRequest >= .seconds(timeout) - .milliseconds(50), comment, sourceLocation: sourceLocation)
        #expect(times.sinceAccept < .seconds(timeout) + slack, comment, sourceLocation: sourceLocation)
    }

    /// Loads `url` expecting a failure; then when the one connection it used closed, measured from
    /// before the request and from the connection's accept.
    private func failure(_ downloader: ImageDownloader, _ origin: TestOrigin,
                         _ url: URL) async -> (WebImageError?, (sinceRequest: Duration, sinceAccept: Duration)?) {
        let start = ContinuousClock.now
        let error = await #expect(throws: WebImageError.self) {
            try await downloader.loadImage(url, context: .testing(coder))
        }
        await origin.wait("the downloader to close its connection") { $0.connectionTimes.first?.closed != nil }
        #expect(origin.stats.connectionTimes.count == 1)
        guard let connection = origin.stats.connectionTimes.first, let closed = connection.closed else { return (error, nil) }
        return (error, (closed - start, closed - connection.accepted))
    }

    @Test func slowResponseHeadTimesOut() async throws {
        try await withOriginAndDownloader(Self.config()) { origin, downloader in
            // The delay is the behaviour under test: an origin that never answers in time.
            origin.setRoute("/slow.img", .data(picture, delay: .seconds(30)))
            let (error, times) = await failure(downloader, origin, origin.url("/slow.img"))
            #expect(error?.code == .timedOut)
            #expect(error?.message.contains("waiting for data") == true, "\(String(describing: error))")
            Self.expectWithinBound(times, "no response head")
            #expect(!downloader.shouldBlockFailedURL(origin.url("/slow.img"), error: error!))
        }
    }

    @Test func stalledBodyTimesOut() async throws {
        try await withOriginAndDownloader(Self.config()) { origin, downloader in
            origin.setRoute("/stall.img", .data(picture, mode: .stallAfter(100)))
            let (error, times) = await failure(downloader, origin, origin.url("/stall.img"))
            #expect(error?.code == .timedOut)
            #expect(error?.message.contains("waiting for data") == true, "\(String(describing: error))")
            Self.expectWithinBound(times, "body stalled after 100 bytes")
        }
    }

    @Test func slowTrickleWithinTheTimeoutSucceeds() async throws {
        // 40 ms gaps, each far inside the idle timeout: slow, but always progressing. The timeout is
        // the idle time between reads as the HTTP client sees it; the body is collected on the
        // event loop, so a busy cooperative pool does not delay reads, but the 30 s (ten times that
        // under a sanitizer) keeps the test clear of any pause a loaded run could cause.
        var config = Self.config()
        config.downloadTimeout = 30 * SanitizerRun.slowdown
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/trickle.img", .data(picture, mode: .trickle(chunk: 256, interval: .milliseconds(40))))
            let result = try await downloader.loadImage(origin.url("/trickle.img"), context: .testing(coder))
            #expect(result.image?.pixelSize == PixelSize(width: 16, height: 16))
            // The body really came in pieces, 40 ms apart (the origin's event loop times the connection).
            let pauses = (picture.count + 255) / 256 - 1
            #expect(try #require(origin.stats.connectionTimes.first).accepted + .milliseconds(40 * pauses)
                    <= ContinuousClock.now)
        }
    }

    @Test func everyTimeoutIsBoundedBeforeTheEventLoopSeesIt() async throws {
        var config = DownloaderConfig()
        for (given, taken) in [(Double.infinity, DownloaderConfig.longestTimeout), (1e300, DownloaderConfig.longestTimeout),
                               (.nan, 15), (-1, 15), (0, 15), (2.5, 2.5)] {
            config.downloadTimeout = given
            config.connectTimeout = given
            #expect(config.effectiveTimeout == taken, "\(given)")
            #expect(config.effectiveConnectTimeout == taken, "\(given)")
            // Creating the client converts both to nanoseconds; an unbounded value would trap here.
            try await ImageDownloader(config: config).shutdown()
        }
        config.connectTimeout = nil
        config.downloadTimeout = 7
        #expect(config.effectiveConnectTimeout == 7)
    }
}
