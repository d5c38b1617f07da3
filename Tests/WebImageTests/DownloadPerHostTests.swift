import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The per-host limit beside the global one: counted by host and port, changeable live, and a
/// download waiting for its host never holds back one for another host.
@Suite("Download per-host limit")
struct DownloadPerHostTests {
    let picture = TestImageCoder.encode(width: 4, height: 4)

    /// `url` with its host replaced: the same loopback origin under another name.
    private func onHost(_ host: String, _ url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.host = host
        return components.url!
    }

    @Test func eachHostGetsItsOwnSlotsWithinTheGlobalLimit() async throws {
        var config = DownloaderConfig()
        config.maxConcurrentDownloads = 6
        config.maxConcurrentDownloadsPerHost = 2
        try await withOriginAndDownloader(config) { origin, downloader in
            let coder = TestImageCoder()
            let gate = TestGate()
            // Six for the first host queued before two for the second: the second host's downloads
            // start at once although the first host's are older and still waiting.
            let urls = (0..<6).map { origin.url("/a\($0).img") } + (0..<2).map { onHost("localhost", origin.url("/b\($0).img")) }
            let recorders = urls.map { _ in LoadRecorder() }
            for (url, recorder) in zip(urls, recorders) {
                origin.setRoute(url.path, .data(picture, mode: .gated(0, gate)))
                downloader.requestImage(with: url, options: [], context: .testing(coder), progress: nil,
                                        completion: recorder.completion)
            }
            await origin.wait("4 requests in flight") { $0.inFlight == 4 }
            #expect(downloader.runningDownloadCount(host: urls[0]) == 2)
            #expect(downloader.runningDownloadCount(host: urls[6]) == 2)
            let hosts = origin.stats.requests.compactMap { $0.header("Host")?.split(separator: ":").first.map(String.init) }
            #expect(hosts.filter { $0 == "127.0.0.1" }.count == 2 && hosts.filter { $0 == "localhost" }.count == 2)
            #expect(downloader.currentDownloadCount == 8, "the other four wait for their host")

            // Raising the per-host limit starts two more for the first host at once (6 in all).
            downloader.config.maxConcurrentDownloadsPerHost = 4
            await origin.wait("6 requests in flight") { $0.inFlight == 6 }
            #expect(downloader.runningDownloadCount(host: urls[0]) == 4)

            gate.open()
            await waitForFinals(recorders)
            #expect(recorders.allSatisfy { $0.finals.first?.image != nil })
            #expect(origin.stats.maxInFlight == 6)
            #expect(downloader.runningDownloadCount(host: urls[0]) == 0)
        }
    }

    @Test func hostKeysNameHostAndPort() {
        #expect(DownloadOperation.hostKey(of: URL(string: "https://Example.COM/a.png")!) == "example.com:443")
        #expect(DownloadOperation.hostKey(of: URL(string: "http://example.com/a.png")!) == "example.com:80")
        #expect(DownloadOperation.hostKey(of: URL(string: "http://example.com:8080/a.png")!) == "example.com:8080")
    }
}
