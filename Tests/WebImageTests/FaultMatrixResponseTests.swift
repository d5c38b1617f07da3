import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Fault matrix, HTTP responses: lengths that lie, empty and non-image bodies, 5xx bursts.
/// Each case pins the caller's error, that the failure carries nothing storable, the block-list
/// decision, and that the downloader still works afterwards.
@Suite("Fault matrix: lying lengths, empty and non-image bodies, 5xx bursts")
struct FaultMatrixResponseTests {
    private static func png() throws -> [UInt8] { [UInt8](try ImageCacheFixtures.pngData(width: 64, height: 48)) }

    @Test func contentLengthLargerThanTheBodyThenCloseIsATruncation() async throws {
        try await withOriginAndDownloader(FaultMatrix.config()) { origin, downloader in
            let body = try Self.png()
            var route = TestOriginRoute.data(body, contentType: "image/png", mode: .closeAfter(body.count))
            route.contentLength = body.count + 1000
            origin.setRoute("/long.png", route)
            let outcome = try await FaultMatrix.load(downloader, origin.url("/long.png"))
            FaultMatrix.expectFailure(outcome, .connectionFailed)
            #expect(!downloader.shouldBlockFailedURL(origin.url("/long.png"), error: outcome.error!))
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }

    @Test func contentLengthLargerThanTheBodyThenSilenceTimesOut() async throws {
        try await withOriginAndDownloader(FaultMatrix.config(timeout: 2)) { origin, downloader in
            let body = try Self.png()
            var route = TestOriginRoute.data(body, contentType: "image/png", mode: .stallAfter(body.count))
            route.contentLength = body.count + 1000
            origin.setRoute("/long.png", route)
            let outcome = try await FaultMatrix.load(downloader, origin.url("/long.png"))
            FaultMatrix.expectFailure(outcome, .timedOut)
            #expect(!downloader.shouldBlockFailedURL(origin.url("/long.png"), error: outcome.error!))
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }

    @Test func contentLengthSmallerThanTheBodyDeliversOnlyTheDeclaredBytes() async throws {
        try await withOriginAndDownloader(FaultMatrix.config()) { origin, downloader in
            var route = TestOriginRoute.data(try Self.png(), contentType: "image/png")
            route.contentLength = 40
            origin.setRoute("/short.png", route)
            let outcome = try await FaultMatrix.load(downloader, origin.url("/short.png"))
            // 40 bytes of a PNG: signature and part of IHDR, so the image data is missing.
            FaultMatrix.expectFailure(outcome, .badImageData)
            #expect(outcome.mostBytesReported <= 40)
            // The surplus bytes must not be read as the next response on a reused connection.
            try await FaultMatrix.expectHealthy(downloader, origin)
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }

    @Test func emptyBodiesAreBadImageData() async throws {
        try await withOriginAndDownloader(FaultMatrix.config()) { origin, downloader in
            origin.setRoute("/empty.png", .data([], contentType: "image/png"))
            origin.setRoute("/no-content.png", TestOriginRoute(status: 204, contentType: "image/png"))
            for path in ["/empty.png", "/no-content.png"] {
                let outcome = try await FaultMatrix.load(downloader, origin.url(path))
                FaultMatrix.expectFailure(outcome, .badImageData)
                #expect(outcome.error?.message.contains("empty") == true)
                // SDWebImage's rule: bad data block-lists the URL (unless .retryFailed).
                #expect(downloader.shouldBlockFailedURL(origin.url(path), error: outcome.error!))
            }
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }

    @Test func htmlAndTextServedAsJPEGAreBadImageData() async throws {
        try await withOriginAndDownloader(FaultMatrix.config()) { origin, downloader in
            let html = Array("<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>".utf8)
            origin.setRoute("/page.jpg", .data(html, contentType: "image/jpeg"))
            origin.setRoute("/text.jpg", .data(Array("Not Found".utf8), contentType: "image/jpeg"))
            // Starts like a JPEG (SOI + APP0), then text: recognised as JPEG, refused by the decoder.
            origin.setRoute("/fake.jpg", .data([0xFF, 0xD8, 0xFF, 0xE0] + Array("<html>oops</html>".utf8),
                                               contentType: "image/jpeg"))
            for path in ["/page.jpg", "/text.jpg", "/fake.jpg"] {
                let outcome = try await FaultMatrix.load(downloader, origin.url(path))
                FaultMatrix.expectFailure(outcome, .badImageData)
                #expect(outcome.error?.url == origin.url(path))
                #expect(outcome.error?.contentType == "image/jpeg" || outcome.error?.contentType == nil)
            }
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }

    @Test func fiveHundredsBurstThenSuccessIsNeverBlockListed() async throws {
        try await withOriginAndDownloader(FaultMatrix.config()) { origin, downloader in
            let body = try Self.png()
            let served = Atomic<Int>(0)
            origin.setHandler("/flaky.png") { _ in
                let attempt = served.add(1, ordering: .relaxed).newValue
                let failure = [500, 502, 503][min(attempt - 1, 2)]
                return attempt <= 3 ? .status(failure) : .data(body, contentType: "image/png")
            }
            let url = origin.url("/flaky.png")
            for expected in [500, 502, 503] {
                let outcome = try await FaultMatrix.load(downloader, url)
                FaultMatrix.expectFailure(outcome, .invalidDownloadStatusCode)
                #expect(outcome.error?.httpStatus == expected)
                #expect(!downloader.shouldBlockFailedURL(url, error: outcome.error!))
            }
            let success = try await FaultMatrix.load(downloader, url)
            #expect(success.error == nil)
            #expect(success.final.image?.pixelSize == PixelSize(width: 64, height: 48))
            #expect(success.final.data?.count == body.count)
            #expect(origin.requestCount("/flaky.png") == 4)
        }
    }

    @Test func a5xxWithAnImageBodyIsStillAFailure() async throws {
        try await withOriginAndDownloader(FaultMatrix.config()) { origin, downloader in
            origin.setRoute("/error-page.png", TestOriginRoute(status: 500, contentType: "image/png", body: try Self.png()))
            let outcome = try await FaultMatrix.load(downloader, origin.url("/error-page.png"))
            FaultMatrix.expectFailure(outcome, .invalidDownloadStatusCode)
            #expect(outcome.error?.httpStatus == 500)
        }
    }

    @Test func smallContentLengthOnAHugeBodyKeepsTheSizeLimit() async throws {
        // The header says 1,000 bytes; the server pushes 5 MB. The client reads what was declared.
        try await withOriginAndDownloader(FaultMatrix.config(maximumResponseSize: 64 * 1024)) { origin, downloader in
            let png = try FaultMatrix.noisePNG()
            #expect(png.count > 4000)
            var route = TestOriginRoute.data(png, contentType: "image/png",
                                             mode: .generated(bytes: 5_000_000, chunk: 64 * 1024))
            route.contentLength = 1000
            origin.setRoute("/liar.png", route)
            let outcome = try await FaultMatrix.load(downloader, origin.url("/liar.png"))
            // The first 1,000 bytes of a 4 KB PNG: truncated image data, nothing more was read.
            FaultMatrix.expectFailure(outcome, .badImageData)
            #expect(outcome.mostBytesReported <= 1000)
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }
}
