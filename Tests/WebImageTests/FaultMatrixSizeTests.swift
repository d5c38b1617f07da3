import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Fault matrix, sizes: decompression bombs through the downloader and bodies far over the
/// response limit, declared or streamed. Every refusal comes from a header or the running
/// byte count, so these tests allocate nothing near the sizes involved.
@Suite("Fault matrix: decompression bombs and 300 MB bodies")
struct FaultMatrixSizeTests {
    /// Hand-made files whose headers claim billions of pixels over a few bytes of data.
    static let bombs: [(path: String, type: String, bytes: [UInt8])] = {
        let png = PNGFixtures.png(header: PNGFixtures.ihdr(100_000, 100_000),
                                  zlib: PNGFixtures.zlibStored([0, 0, 0, 0, 0]))
        let gif = GIFFixtures.oversizedFrame(width: 65535, height: 65535, frameWidth: 65535, frameHeight: 65535)
        let jpeg = (try? JPEGFixtures.encode(TestBitmaps.quadrants()))
            .map { JPEGFixtures.patchingFrameSize($0, width: 65000, height: 65000) } ?? Data()
        return [("/bomb.png", "image/png", [UInt8](png)), ("/bomb.gif", "image/gif", [UInt8](gif)),
                ("/bomb.jpg", "image/jpeg", [UInt8](jpeg))]
    }()

    @Test func decompressionBombsAreRefusedFromTheHeader() async throws {
        try await withOriginAndDownloader(FaultMatrix.config()) { origin, downloader in
            for bomb in Self.bombs {
                #expect(bomb.bytes.count < 2000, "\(bomb.path) should be a tiny file")
                origin.setRoute(bomb.path, .data(bomb.bytes, contentType: bomb.type))
                let outcome = try await FaultMatrix.load(downloader, origin.url(bomb.path))
                FaultMatrix.expectFailure(outcome, .imageTooLarge)
                #expect(outcome.error?.message.contains("decode limit") == true, "\(String(describing: outcome.error))")
                #expect(outcome.error?.url == origin.url(bomb.path))
                // The limit is the client's choice (a thumbnail or higher limits may load it): not block-listed.
                #expect(!downloader.shouldBlockFailedURL(origin.url(bomb.path), error: outcome.error!))
            }
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }

    @Test func decompressionBombsFedProgressivelyAreRefusedToo() async throws {
        try await withOriginAndDownloader(FaultMatrix.config()) { origin, downloader in
            for bomb in Self.bombs {
                origin.setRoute(bomb.path, .data(bomb.bytes, contentType: bomb.type, mode: .chunked(7)))
                let outcome = try await FaultMatrix.load(downloader, origin.url(bomb.path), options: [.progressiveLoad])
                FaultMatrix.expectFailure(outcome, .imageTooLarge)
                #expect(outcome.partials.allSatisfy { ($0.image?.pixelSize.area ?? 0) <= DecodeLimits.default.maxPixels })
            }
        }
    }

    @Test func declared300MegabytesAreRefusedBeforeReadingAnyBody() async throws {
        #expect(DownloaderConfig.defaultMaximumResponseSize < 300_000_000)
        // The default limit; the origin would generate the 300 MB lazily, but none of it is read.
        try await withOriginAndDownloader(FaultMatrix.config()) { origin, downloader in
            let png = try FaultMatrix.noisePNG()
            origin.setRoute("/huge.png", .data(png, contentType: "image/png",
                                               mode: .generated(bytes: 300_000_000, chunk: 64 * 1024)))
            let outcome = try await FaultMatrix.load(downloader, origin.url("/huge.png"))
            FaultMatrix.expectFailure(outcome, .responseTooLarge)
            #expect(outcome.error?.message.contains("declares 300000000 bytes") == true)
            #expect(outcome.mostBytesReported == 0)
            #expect(!downloader.shouldBlockFailedURL(origin.url("/huge.png"), error: outcome.error!))
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }

    /// A length just under the limit passes the header check, so only the body's bounded
    /// reservation (ResponseBodyTests) keeps it from pinning that much memory; the caller still
    /// gets the truncation or the timeout.
    @Test(arguments: [false, true])
    func aLengthJustUnderTheLimitThenCloseOrStallFails(stalls: Bool) async throws {
        let limit = 150_000_000
        let config = FaultMatrix.config(maximumResponseSize: limit, timeout: stalls ? 2 : 15)
        try await withOriginAndDownloader(config) { origin, downloader in
            let png = try FaultMatrix.noisePNG()
            var route = TestOriginRoute.data(png, contentType: "image/png",
                                             mode: stalls ? .stallAfter(png.count) : .closeAfter(png.count))
            route.contentLength = limit - 1
            origin.setRoute("/claims.png", route)
            let outcome = try await FaultMatrix.load(downloader, origin.url("/claims.png"))
            FaultMatrix.expectFailure(outcome, stalls ? .timedOut : .connectionFailed)
            if !stalls {
                // The header passed the size check and the body began. (Not asserted for the stall:
                // on a loaded machine its short timeout can fire before the response head arrives.)
                #expect(outcome.progress.contains { $0 == (0, Int64(limit - 1)) }, "the declared length was accepted")
            }
            #expect(outcome.mostBytesReported <= Int64(png.count))
            #expect(!downloader.shouldBlockFailedURL(origin.url("/claims.png"), error: outcome.error!))
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }

    @Test func chunked300MegabytesTripTheLimitWhileStreaming() async throws {
        // No length is declared, so only the running count can stop it. A 4 MB limit keeps the
        // test fast; the rule is the same at the default 200 MB.
        let limit = 4 * 1024 * 1024
        try await withOriginAndDownloader(FaultMatrix.config(maximumResponseSize: limit)) { origin, downloader in
            let png = try FaultMatrix.noisePNG()
            origin.setRoute("/endless.png", .data(png, contentType: "image/png",
                                                  mode: .generatedChunked(bytes: 300_000_000, chunk: 64 * 1024)))
            let outcome = try await FaultMatrix.load(downloader, origin.url("/endless.png"), options: [.progressiveLoad])
            FaultMatrix.expectFailure(outcome, .responseTooLarge)
            #expect(outcome.error?.message.contains("while streaming") == true)
            #expect(outcome.mostBytesReported <= Int64(limit))
            #expect(outcome.mostBytesReported > 0)
            #expect(!downloader.shouldBlockFailedURL(origin.url("/endless.png"), error: outcome.error!))
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }
}
