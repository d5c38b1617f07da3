import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Which callers share a download in flight: compatible ones do, and the first caller's request
/// wins for them; a caller with other validators gets a download of its own.
@Suite("Download joining: first caller wins, conditional callers apart")
struct DownloadJoinTests {
    let picture = TestImageCoder.encode(width: 12, height: 6)

    /// Requests `url` and returns the recorder that collects its callbacks.
    @discardableResult
    private func request(_ downloader: ImageDownloader, _ url: URL, context: WebImageContext,
                         options: WebImageOptions = []) -> (LoadRecorder, ImageDownloadToken?) {
        let recorder = LoadRecorder()
        let token = downloader.requestImage(with: url, options: options, context: context,
                                            progress: nil, completion: recorder.completion)
        return (recorder, token as? ImageDownloadToken)
    }

    @Test func theFirstCallersRequestModifierHeadersAndDecryptorWin() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader { origin, downloader in
            let gate = TestGate()
            origin.setRoute("/first.img", .data(picture, mode: .gated(5, gate)))
            var firstContext = WebImageContext.testing(coder)
            firstContext.requestModifier = DownloadRequestModifier(headers: ["X-Caller": "first"])
            var secondContext = WebImageContext.testing(coder)
            secondContext.requestModifier = DownloadRequestModifier(headers: ["X-Caller": "second", "X-Only-Second": "1"])
            // Were the second caller's decryptor used, its result would be an error, not an image.
            secondContext.decryptor = DownloadDecryptor { _, _ in nil }
            secondContext.responseModifier = DownloadResponseModifier { _ in nil }

            let (first, _) = request(downloader, origin.url("/first.img"), context: firstContext)
            await origin.waitForRequest("/first.img")
            let (second, secondToken) = request(downloader, origin.url("/first.img"), context: secondContext)
            #expect(secondToken?.request.headers[header: "X-Caller"] == "first")
            gate.open()
            await first.waitForFinal()
            await second.waitForFinal()

            #expect(first.finals.first?.image?.pixelSize == PixelSize(width: 12, height: 6))
            #expect(second.finals.first?.image?.pixelSize == PixelSize(width: 12, height: 6))
            #expect(secondToken?.metrics.callerCount == 2)
            let seen = origin.requests("/first.img")
            #expect(seen.count == 1)
            #expect(seen.first?.header("X-Caller") == "first")
            #expect(seen.first?.header("X-Only-Second") == nil)
        }
    }

    /// One slot, taken by a gated download, so the next requests wait in the queue where a
    /// caller could join them; the gate then lets everything run.
    private static let oneSlot: DownloaderConfig = {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        return config
    }()

    /// Serves "/cond.img" (ETag "v2") and fills the one slot with a gated "/blocker.img" download,
    /// so the next requests queue; opening the returned gate lets everything run.
    private func holdTheOnlySlot(_ origin: TestOrigin, _ downloader: ImageDownloader,
                                 _ coder: TestImageCoder) async -> (gate: TestGate, blocker: LoadRecorder) {
        let gate = TestGate()
        origin.setRoute("/blocker.img", .data(picture, mode: .gated(5, gate)))
        var route = TestOriginRoute.data(picture)
        route.etag = "\"v2\""
        origin.setRoute("/cond.img", route)
        let (blocker, _) = request(downloader, origin.url("/blocker.img"), context: .testing(coder))
        await origin.waitForRequest("/blocker.img")
        return (gate, blocker)
    }

    @Test func aPlainCallerDoesNotJoinAConditionalDownload() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader(Self.oneSlot) { origin, downloader in
            let (gate, blocker) = await holdTheOnlySlot(origin, downloader, coder)

            var conditional = WebImageContext.testing(coder)
            conditional.validators = HTTPValidators(etag: "\"v2\"")
            let (refresh, _) = request(downloader, origin.url("/cond.img"), context: conditional)
            let (plain, _) = request(downloader, origin.url("/cond.img"), context: .testing(coder))
            // The plain caller did not join the queued conditional download: it has its own.
            #expect(downloader.currentDownloadCount == 3)
            gate.open()
            await waitForFinals([blocker, refresh, plain])

            #expect(refresh.finals.first?.error?.code == .cacheNotModified)
            #expect(plain.finals.first?.error == nil)
            #expect(plain.finals.first?.image?.pixelSize == PixelSize(width: 12, height: 6))
            let sent = origin.requests("/cond.img").map { $0.header("If-None-Match") }
            #expect(sent.count == 2)
            #expect(sent.contains("\"v2\"") && sent.contains(nil))
        }
    }

    @Test func conditionalCallersWithTheSameValidatorsStillShareOneRequest() async throws {
        let coder = TestImageCoder()
        try await withOriginAndDownloader(Self.oneSlot) { origin, downloader in
            let (gate, _) = await holdTheOnlySlot(origin, downloader, coder)

            var same = WebImageContext.testing(coder)
            same.validators = HTTPValidators(etag: "\"v2\"")
            var other = WebImageContext.testing(coder)
            other.validators = HTTPValidators(etag: "\"v1\"")
            let recorders = [same, same, other].map { request(downloader, origin.url("/cond.img"), context: $0).0 }
            #expect(downloader.currentDownloadCount == 3, "blocker, the shared \"v2\" download, the \"v1\" one")
            gate.open()
            await waitForFinals(recorders)

            #expect(recorders[0].finals.first?.error?.code == .cacheNotModified)
            #expect(recorders[1].finals.first?.error?.code == .cacheNotModified)
            #expect(recorders[2].finals.first?.image != nil, "\"v1\" is stale: the new image comes back")
            #expect(origin.requestCount("/cond.img") == 2)
        }
    }
}
