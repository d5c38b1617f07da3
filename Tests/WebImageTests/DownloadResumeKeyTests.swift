import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// What a stored partial body may be continued by: only the same request, and only a 206 whose
/// length, range and validator all agree with what was stored.
@Suite("Download resume checks")
struct DownloadResumeKeyTests: ResumeFixture {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 64, height: 64)
    var cut: Int { picture.count * 6 / 10 }

    private func fullRoute() -> TestOriginRoute {
        var route = TestOriginRoute.data(picture)
        route.acceptsRanges = true
        route.etag = "\"v1\""
        return route
    }

    private func load(_ downloader: ImageDownloader, _ url: URL,
                      context: WebImageContext? = nil) async throws -> (ImageLoadResult?, DownloadMetrics) {
        let recorder = LoadRecorder()
        let token = try #require(downloader.requestImage(with: url, options: [], context: context ?? .testing(coder),
                                                         progress: nil, completion: recorder.completion)
            as? ImageDownloadToken)
        let result = await recorder.waitForFinal()
        return (result, token.metrics)
    }

    /// A 206 whose Content-Length is shorter than its Content-Range: appending it would deliver
    /// a body cut short as if it were whole.
    @Test func a206WhoseLengthDisagreesWithItsRangeStartsOver() async throws {
        try await withOriginAndDownloader(config(retries: 1)) { origin, downloader in
            var short = TestOriginRoute(status: 206, body: Array(picture[cut ..< cut + 10]))
            short.headers = [("Content-Range", "bytes \(cut)-\(picture.count - 1)/\(picture.count)"), ("ETag", "\"v1\"")]
            origin.setRoutes("/short.img", [cutRoute(), short, fullRoute()])
            let (result, metrics) = try await load(downloader, origin.url("/short.img"))
            #expect(result?.data == Data(picture), "never spliced")
            let requests = origin.requests("/short.img")
            #expect(requests.count == 3)
            #expect(requests[1].header("Range") == "bytes=\(cut)-")
            #expect(requests[2].header("Range") == nil, "asked again whole")
            #expect(metrics.resumedBytes == 0)
        }
    }

    @Test func a206WithAnotherLastModifiedStartsOver() async throws {
        let stored = "Tue, 24 Nov 2026 05:00:00 GMT"
        try await withOriginAndDownloader(config(retries: 1)) { origin, downloader in
            var other = TestOriginRoute(status: 206, body: Array(picture[cut...]))
            other.headers = [("Content-Range", "bytes \(cut)-\(picture.count - 1)/\(picture.count)"),
                             ("Last-Modified", "Wed, 25 Nov 2026 05:00:00 GMT")]
            origin.setRoutes("/dated.img", [cutRoute(etag: nil, lastModified: stored), other, fullRoute()])
            let (result, metrics) = try await load(downloader, origin.url("/dated.img"))
            #expect(result?.data == Data(picture))
            #expect(origin.requests("/dated.img")[1].header("If-Range") == stored)
            #expect(origin.requests("/dated.img").last?.header("Range") == nil)
            #expect(metrics.resumedBytes == 0)
        }
    }

    /// A partial body is kept for the request it answered: a load of the same URL with other
    /// header fields starts from the beginning, and the same request still resumes it.
    @Test func aPartialBodyContinuesOnlyTheSameRequest() async throws {
        let messages = RecordingLogHandler.Messages()
        try await withOriginAndDownloader(config(retries: 0, messages: messages)) { origin, downloader in
            func context(_ variant: String) -> WebImageContext {
                var context = WebImageContext.testing(coder)
                context.requestModifier = DownloadRequestModifier(headers: ["X-Variant": variant])
                return context
            }
            origin.setRoute("/variant.img", cutRoute())
            let (cutShort, _) = try await load(downloader, origin.url("/variant.img"), context: context("a"))
            #expect(cutShort?.error != nil)
            await messages.wait(for: "kept a partial body to resume")

            origin.setRoute("/variant.img", fullRoute())
            let (other, otherMetrics) = try await load(downloader, origin.url("/variant.img"), context: context("b"))
            #expect(other?.data == Data(picture))
            #expect(origin.requests("/variant.img").last?.header("Range") == nil, "another request: not resumed")
            #expect(otherMetrics.resumedBytes == 0)

            let (same, sameMetrics) = try await load(downloader, origin.url("/variant.img"), context: context("a"))
            #expect(same?.data == Data(picture))
            #expect(origin.requests("/variant.img").last?.header("Range") == "bytes=\(cut)-")
            #expect(sameMetrics.resumedBytes == Int64(cut))
        }
    }
}
