import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The download timeout's precision: a stalled response fails within the timeout plus one second,
/// and never before the timeout. The time is the connection's lifetime as the origin's event loop
/// saw it — from the downloader's connect to its close when the timer fired — so a cooperative
/// pool starved by every other suite of the same run cannot stretch it: this suite needs no pass
/// of its own.
@Suite("Download timeouts")
struct DownloadTimeoutTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 16, height: 16)
    static let timeout: Double = 1

    private static func config() -> DownloaderConfig {
        var config = DownloaderConfig()
        config.downloadTimeout = timeout
        return config
    }

    /// At least the timeout; at most the timeout + 1 s (+ 5 s more for an instrumented run).
    private static func expectWithinBound(_ elapsed: Duration, _ comment: Comment) {
        let slack: Duration = SanitizerRun.name == nil ? .seconds(1) : .seconds(6)
        #expect(elapsed >= .seconds(timeout) - .milliseconds(50), comment)
        #expect(elapsed < .seconds(timeout) + slack, comment)
    }

    /// Loads `url` expecting a failure, then how long the one connection it used stayed open.
    private func failure(_ downloader: ImageDownloader, _ origin: TestOrigin,
                         _ url: URL) async -> (WebImageError?, Duration?) {
        let error = await #expect(throws: WebImageError.self) {
            try await downloader.loadImage(url, context: .testing(coder))
        }
        await origin.wait("the downloader to close its connection") { $0.connectionTimes.first?.closed != nil }
        #expect(origin.stats.connectionTimes.count == 1)
        return (error, origin.stats.connectionTimes.first?.lifetime)
    }

    @Test func slowResponseHeadTimesOut() async throws {
        try await withOriginAndDownloader(Self.config()) { origin, downloader in
            // The delay is the behaviour under test: an origin that never answers in time.
            origin.setRoute("/slow.img", .data(picture, delay: .seconds(30)))
            let (error, lifetime) = await failure(downloader, origin, origin.url("/slow.img"))
            #expect(error?.code == .timedOut)
            Self.expectWithinBound(try #require(lifetime), "no response head")
            #expect(!downloader.shouldBlockFailedURL(origin.url("/slow.img"), error: error!))
        }
    }

    @Test func stalledBodyTimesOut() async throws {
        try await withOriginAndDownloader(Self.config()) { origin, downloader in
            origin.setRoute("/stall.img", .data(picture, mode: .stallAfter(100)))
            let (error, lifetime) = await failure(downloader, origin, origin.url("/stall.img"))
            #expect(error?.code == .timedOut)
            Self.expectWithinBound(try #require(lifetime), "body stalled after 100 bytes")
        }
    }

    @Test func slowTrickleWithinTheTimeoutSucceeds() async throws {
        // 40 ms gaps, each far inside the idle timeout: slow, but always progressing. The timeout is
        // the idle time between reads as the HTTP client sees it, and the client reads only when the
        // downloader asks for more, so it must also outlast the longest pause a run of the whole
        // suite imposes on the downloader's task on the cooperative pool: 30 s (ten times that
        // under a sanitizer).
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
}
