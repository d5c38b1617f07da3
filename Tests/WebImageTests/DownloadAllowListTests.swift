import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// `DownloaderConfig.sourceAllowList` against the loopback origin: checked on the first request
/// and on every redirect hop, before anything connects.
@Suite("Download source allow-list")
struct DownloadAllowListTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 6, height: 4)

    private func load(_ downloader: ImageDownloader, _ url: URL) async -> ImageLoadResult? {
        await downloader.finalResult(for: url, coder: coder)
    }

    @Test func onlyURLsUnderTheListAreRequested() async throws {
        try await withTestOrigin { origin in
            var config = DownloaderConfig()
            config.sourceAllowList = try SourceAllowList([origin.url("/ok/").absoluteString])
            try await withDownloader(config) { downloader in
                origin.setRoute("/ok/a.img", .data(picture))
                origin.setRoute("/other/a.img", .data(picture))
                #expect(await load(downloader, origin.url("/ok/a.img"))?.image != nil)
                for path in ["/other/a.img", "/ok/../other/a.img", "/ok%2F..%2Fother/a.img"] {
                    let error = try #require(await load(downloader, URL(string: origin.origin + path)!)?.error)
                    #expect(error.code == .sourceNotAllowed, "\(path)")
                    #expect(error.message.contains("not under an allowed source"), "\(error.message)")
                }
                #expect(origin.stats.requests.map(\.path) == ["/ok/a.img"], "nothing else reached the origin")
            }
        }
    }

    @Test func aRedirectOutOfTheListIsRefusedAtThatHop() async throws {
        try await withTestOrigin { origin in
            try await withTestOrigin { other in
                var config = DownloaderConfig()
                config.sourceAllowList = try SourceAllowList([origin.url("/ok/").absoluteString])
                config.retryStrategy = RetryStrategy(maxRetries: 2)
                config.clock = TestClock()
                try await withDownloader(config) { downloader in
                    other.setRoute("/a.img", .data(picture))
                    origin.setRoute("/private/a.img", .data(picture))
                    origin.setRoute("/ok/a.img", .data(picture))
                    origin.setRoute("/ok/out", .redirect(to: other.url("/a.img").absoluteString))
                    origin.setRoute("/ok/up", .redirect(to: "/private/a.img"))
                    origin.setRoute("/ok/in", .redirect(to: "/ok/a.img"))
                    for path in ["/ok/out", "/ok/up"] {
                        let start = origin.url(path)
                        let error = try #require(await load(downloader, start)?.error)
                        #expect(error.code == .sourceNotAllowed, "\(path)")
                        #expect(error.url == start)
                        #expect(error.message.contains("redirected to"), "\(error.message)")
                        #expect(origin.requestCount(path) == 1, "refused, not retried")
                    }
                    #expect(other.stats.connectionsAccepted == 0)
                    #expect(origin.requestCount("/private/a.img") == 0)
                    #expect(await load(downloader, origin.url("/ok/in"))?.image != nil, "a redirect inside the list")
                }
            }
        }
    }
}
