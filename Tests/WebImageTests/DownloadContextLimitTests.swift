import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// ``WebImageContext/maximumResponseSize``: a per-request limit that tightens the downloader's,
/// and keeps callers with different limits on downloads of their own.
@Suite("Download per-request size limit")
struct DownloadContextLimitTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 16, height: 16)

    private func context(limit: Int?) -> WebImageContext {
        var context = WebImageContext.testing(coder)
        context.maximumResponseSize = limit
        return context
    }

    @Test(arguments: [false, true])
    func aBodyOverTheRequestsLimitFails(chunked: Bool) async throws {
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/a.img", .data(picture, mode: chunked ? .chunked(64) : .whole))
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/a.img"), options: [], context: context(limit: picture.count - 1),
                                    progress: nil, completion: recorder.completion)
            let error = try #require(await recorder.waitForFinal()?.error)
            #expect(error.code == .responseTooLarge)
            #expect(error.message.contains("\(picture.count - 1) bytes"), "\(error.message)")
        }
    }

    @Test func theRequestsLimitNeverLoosensTheDownloaders() async throws {
        var config = DownloaderConfig()
        config.maximumResponseSize = picture.count - 1
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/a.img", .data(picture))
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/a.img"), options: [], context: context(limit: picture.count * 10),
                                    progress: nil, completion: recorder.completion)
            #expect(await recorder.waitForFinal()?.error?.code == .responseTooLarge)
        }
    }

    /// A caller with a tighter limit arriving while another's download runs gets its own download:
    /// it fails on its limit while the first gets the image.
    @Test func callersWithDifferentLimitsDoNotShareADownload() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let gate = TestGate()
            origin.setRoute("/a.img", .data(picture, mode: .gated(10, gate)))
            let open = LoadRecorder()
            downloader.requestImage(with: origin.url("/a.img"), options: [], context: context(limit: nil), progress: nil,
                                    completion: open.completion)
            await origin.waitForRequest("/a.img")
            let tight = LoadRecorder()
            downloader.requestImage(with: origin.url("/a.img"), options: [], context: context(limit: picture.count - 1),
                                    progress: nil, completion: tight.completion)
            await origin.waitForRequest("/a.img", count: 2)
            gate.open()
            #expect(await tight.waitForFinal()?.error?.code == .responseTooLarge)
            #expect(await open.waitForFinal()?.image != nil)
        }
    }
}
