import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The download timeout's precision: a stalled response fails within the timeout plus one second,
/// and never before the timeout. `make test` runs this suite in a pass of its own, so the bound
/// measures the downloader and not a thread pool shared with dozens of other suites.
@Suite("Download timeouts (run alone)")
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

    private func failure(_ downloader: ImageDownloader, _ url: URL) async -> (WebImageError?, Duration) {
        let clock = ContinuousClock(), start = clock.now
        let error = await #expect(throws: WebImageError.self) {
            try await downloader.loadImage(url, context: .testing(coder))
        }
        return (error, clock.now - start)
    }

    @Test func slowResponseHeadTimesOut() async throws {
        try await withOriginAndDownloader(Self.config()) { origin, downloader in
            origin.setRoute("/slow.img", .data(picture, delay: .seconds(30)))
            let (error, elapsed) = await failure(downloader, origin.url("/slow.img"))
            #expect(error?.code == .timedOut)
            Self.expectWithinBound(elapsed, "no response head")
            #expect(!downloader.shouldBlockFailedURL(origin.url("/slow.img"), error: error!))
        }
    }

    @Test func stalledBodyTimesOut() async throws {
        try await withOriginAndDownloader(Self.config()) { origin, downloader in
            origin.setRoute("/stall.img", .data(picture, mode: .stallAfter(100)))
            let (error, elapsed) = await failure(downloader, origin.url("/stall.img"))
            #expect(error?.code == .timedOut)
            Self.expectWithinBound(elapsed, "body stalled after 100 bytes")
        }
    }

    @Test func slowTrickleWithinTheTimeoutSucceeds() async throws {
        // 40 ms gaps against a 3 s idle timeout: slow, but always progressing (ten times that under a
        // sanitizer, whose instrumented origin can pause for seconds).
        var config = Self.config()
        config.downloadTimeout = 3 * SanitizerRun.slowdown
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/trickle.img", .data(picture, mode: .trickle(chunk: 256, interval: .milliseconds(40))))
            let result = try await downloader.loadImage(origin.url("/trickle.img"), context: .testing(coder))
            #expect(result.image?.pixelSize == PixelSize(width: 16, height: 16))
        }
    }
}
