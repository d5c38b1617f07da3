import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// URLs the socket layer would trap on (a port above 65535, a malformed address literal) fail
/// with a clear error before anything connects: on the first request and on a redirect hop, with
/// the safe-fetch guard on and off.
@Suite("Download invalid URLs")
struct DownloadInvalidURLTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 6, height: 4)

    private func load(_ downloader: ImageDownloader, _ url: URL) async -> ImageLoadResult? {
        await downloader.finalResult(for: url, coder: coder)
    }

    private static func configs() -> [DownloaderConfig] {
        var guarded = DownloaderConfig()
        guarded.addressPolicy = AddressPolicy(allowedNetworks: [IPNetwork("127.0.0.0/8")!])
        return [DownloaderConfig(), guarded]
    }

    @Test(arguments: ["0", "65536", "70000", "99999", "2147483648"])
    func aFirstRequestWithAnInvalidPortFailsBeforeConnecting(port: String) async throws {
        for config in Self.configs() {
            try await withOriginAndDownloader(config) { origin, downloader in
                let target = URL(string: "http://127.0.0.1:\(port)/x.jpg")!
                let error = try #require(await load(downloader, target)?.error)
                #expect(error.code == .invalidURL)
                #expect(error.message.contains("port \(port)"), "\(error.message)")
                // The downloader still works.
                origin.setRoute("/a.img", .data(picture))
                #expect(await load(downloader, origin.url("/a.img"))?.image != nil)
            }
        }
    }

    @Test(arguments: ["http://999.1.1.1/x", "http://[zz]/x", "http://0x7f.1/x", "http://%41.com/x"])
    func aMalformedHostFailsBeforeConnecting(target: String) async throws {
        for config in Self.configs() {
            try await withOriginAndDownloader(config) { _, downloader in
                let error = try #require(await load(downloader, URL(string: target)!)?.error)
                #expect(error.code == .invalidURL, "\(error)")
            }
        }
    }

    @Test(arguments: ["http://127.0.0.1:70000/", "http://127.0.0.1:99999/x.jpg", "http://[::1]:65536/",
                      "http://1.2.3/x"])
    func aRedirectToAnInvalidURLFailsAtThatHop(target: String) async throws {
        for config in Self.configs() {
            try await withOriginAndDownloader(config) { origin, downloader in
                origin.setRoute("/hop.img", .redirect(to: target))
                let start = origin.url("/hop.img")
                let error = try #require(await load(downloader, start)?.error)
                #expect(error.code == .invalidDownloadResponse)
                #expect(error.url == start)
                #expect(error.message.contains("redirected to an invalid URL") && error.message.contains(target),
                        "\(error.message)")
                #expect(origin.requestCount("/hop.img") == 1)
            }
        }
    }

    /// A request modifier that points the request at an invalid URL is caught as well.
    @Test func aModifiedRequestWithAnInvalidPortFails() async throws {
        try await withOriginAndDownloader { origin, downloader in
            var context = WebImageContext.testing(coder)
            context.requestModifier = DownloadRequestModifier { request in
                var request = request
                request.url = URL(string: "http://127.0.0.1:70000/x")!
                return request
            }
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/a.img"), options: [], context: context, progress: nil,
                                    completion: recorder.completion)
            #expect(await recorder.waitForFinal()?.error?.code == .invalidURL)
            #expect(origin.stats.connectionsAccepted == 0)
        }
    }
}
