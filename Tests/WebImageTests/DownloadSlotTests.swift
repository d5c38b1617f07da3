import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A download's slot (``DownloaderConfig/maxConcurrentDownloads``) is held for its network part
/// only: its decodes run after the slot went to the next download.
@Suite("Download slots")
struct DownloadSlotTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 6, height: 4)

    @Test func theNextDownloadRunsWhileTheLastOneDecodes() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 1
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/held.img", .data(picture))
            origin.setRoute("/next.img", .data(picture))
            let held = HeldTestCoder()
            let first = LoadRecorder()
            downloader.requestImage(with: origin.url("/held.img"), options: [], context: .testing(held), progress: nil,
                                    completion: first.completion)
            await held.waitUntilDecoding()
            let second = LoadRecorder()
            downloader.requestImage(with: origin.url("/next.img"), options: [], context: .testing(coder), progress: nil,
                                    completion: second.completion)
            #expect(await second.waitForFinal()?.image != nil, "the second download ran while the first decoded")
            #expect(first.finals.isEmpty, "the first is still decoding")
            // A caller of the decoding download still joins it: no second request.
            let joined = LoadRecorder()
            downloader.requestImage(with: origin.url("/held.img"), options: [], context: .testing(held), progress: nil,
                                    completion: joined.completion)
            held.open()
            #expect(await first.waitForFinal()?.image != nil)
            #expect(await joined.waitForFinal()?.image != nil)
            #expect(origin.requestCount("/held.img") == 1)
            #expect(downloader.currentDownloadCount == 0)
        }
    }
}
