import Foundation
import Testing
@testable import WebImage
@testable import WebImageLoading

/// `WebImageContext.errorBodyLimit`: the start of a refused response's body kept in the error, for
/// origins (S3) that explain a 403 or 404 there; none without it.
@Suite("Download: the body of a refused status")
struct DownloadErrorBodyTests {
    let coder = TestImageCoder()

    private func error(_ url: URL, limit: Int?, downloader: ImageDownloader) async -> WebImageError? {
        var context = WebImageContext.testing(coder)
        context.errorBodyLimit = limit
        do {
            _ = try await downloader.loadImage(url, context: context)
            return nil
        } catch {
            return error as? WebImageError
        }
    }

    @Test func theStartOfTheBodyIsKeptOnlyWhenAskedFor() async throws {
        let explanation = Array("<Error><Code>NoSuchKey</Code></Error>".utf8)
        try await withTestOrigin { origin in
            origin.setRoute("/missing", TestOriginRoute(status: 404, contentType: "application/xml", body: explanation))
            origin.setRoute("/long", TestOriginRoute(status: 403, body: Array(repeating: UInt8(ascii: "x"), count: 1_000_000),
                                                    mode: .chunked(64 * 1024)))
            try await withDownloader { downloader in
                let kept = await error(origin.url("/missing"), limit: 4096, downloader: downloader)
                #expect(kept?.httpStatus == 404)
                #expect(kept?.responseBody == Data(explanation))
                let plain = await error(origin.url("/missing"), limit: nil, downloader: downloader)
                #expect(plain?.httpStatus == 404)
                #expect(plain?.responseBody == nil)
                // A long body is cut at the limit: no more is kept, whatever the origin sends.
                let long = await error(origin.url("/long"), limit: 100, downloader: downloader)
                #expect(long?.httpStatus == 403)
                #expect(long?.responseBody == Data(repeating: UInt8(ascii: "x"), count: 100))
            }
        }
    }
}
