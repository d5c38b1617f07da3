import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// TLS verification against a real HTTPS origin on loopback with a self-signed certificate.
@Suite("Download TLS: a self-signed HTTPS origin")
struct DownloadTLSOriginTests {
    let coder = TestImageCoder()
    let picture = TestImageCoder.encode(width: 8, height: 4)

    /// A generous timeout: the handshake fails at once, but a loaded machine must not turn it into a timeout.
    private static func config(allowInvalid: Bool = false) -> DownloaderConfig {
        var config = DownloaderConfig()
        config.downloadTimeout = TestTimeout.download
        config.allowInvalidSSLCertificates = allowInvalid
        return config
    }

    private func withHTTPSOrigin<T>(_ body: (TestOrigin) async throws -> T) async throws -> T {
        try await withTestOrigin(tls: TestOriginTLS.serverContext(), body)
    }

    @Test func selfSignedOriginFailsByDefaultWithATLSError() async throws {
        try await withHTTPSOrigin { origin in
            try await withDownloader(Self.config()) { downloader in
                origin.setRoute("/a.img", .data(picture))
                let url = origin.url("/a.img")
                #expect(url.scheme == "https")
                let error = await #expect(throws: WebImageError.self) {
                    try await downloader.loadImage(url, context: .testing(coder))
                }
                #expect(error?.code == .tlsFailure)
                #expect(error?.url == url)
                #expect(error?.message.contains("TLS") == true)
                // A certificate problem can be fixed on the server: the URL must not be block-listed.
                // A certificate that fails verification fails again: the URL is blocked.
                #expect(downloader.shouldBlockFailedURL(url, error: error!))
                // Verification failed before any HTTP request went out.
                #expect(origin.requestCount("/a.img") == 0)
            }
        }
    }

    @Test func allowInvalidSSLCertificatesOptionLoadsFromTheSelfSignedOrigin() async throws {
        try await withHTTPSOrigin { origin in
            try await withDownloader(Self.config()) { downloader in
                origin.setRoute("/a.img", .data(picture))
                let result = try await downloader.loadImage(origin.url("/a.img"), options: [.allowInvalidSSLCertificates],
                                                            context: .testing(coder))
                #expect(result.image?.pixelSize == PixelSize(width: 8, height: 4))
                #expect(result.response?.statusCode == 200)
                #expect(origin.requestCount("/a.img") == 1)
            }
        }
    }

    @Test func allowInvalidSSLCertificatesConfigLoadsFromTheSelfSignedOrigin() async throws {
        try await withHTTPSOrigin { origin in
            try await withDownloader(Self.config(allowInvalid: true)) { downloader in
                origin.setRoute("/a.img", .data(picture))
                let result = try await downloader.loadImage(origin.url("/a.img"), context: .testing(coder))
                #expect(result.image?.pixelSize == PixelSize(width: 8, height: 4))
            }
        }
    }

    @Test func anInsecureRequestDoesNotLeaveATrustedConnectionForLaterOnes() async throws {
        // The client pools connections; one opened without verification must not serve a verified request.
        try await withHTTPSOrigin { origin in
            try await withDownloader(Self.config()) { downloader in
                origin.setRoute("/a.img", .data(picture))
                origin.setRoute("/b.img", .data(picture))
                _ = try await downloader.loadImage(origin.url("/a.img"), options: [.allowInvalidSSLCertificates],
                                                   context: .testing(coder))
                let error = await #expect(throws: WebImageError.self) {
                    try await downloader.loadImage(origin.url("/b.img"), context: .testing(coder))
                }
                #expect(error?.code == .tlsFailure)
                #expect(origin.requestCount("/b.img") == 0)
            }
        }
    }

    @Test func aVerifiedCallerNeverJoinsAnInsecureDownload() async throws {
        try await withHTTPSOrigin { origin in
            try await withDownloader(Self.config()) { downloader in
                let gate = TestGate()
                origin.setRoute("/held.img", .data(picture, mode: .gated(5, gate)))
                let insecure = LoadRecorder(), verified = LoadRecorder()
                downloader.requestImage(with: origin.url("/held.img"), options: [.allowInvalidSSLCertificates],
                                        context: .testing(coder), progress: nil, completion: insecure.completion)
                await origin.waitForRequest("/held.img")
                // The insecure download is running; a verifying caller of the same URL gets its own.
                downloader.requestImage(with: origin.url("/held.img"), options: [], context: .testing(coder),
                                        progress: nil, completion: verified.completion)
                await verified.waitForFinal()
                #expect(verified.finals.first?.error?.code == .tlsFailure)
                #expect(verified.finals.first?.image == nil)
                #expect(insecure.finals.isEmpty)
                gate.open()
                await insecure.waitForFinal()
                #expect(insecure.finals.first?.image?.pixelSize == PixelSize(width: 8, height: 4))
                #expect(origin.requestCount("/held.img") == 1)
            }
        }
    }

    @Test func aRedirectToTheSelfSignedOriginIsVerifiedToo() async throws {
        try await withHTTPSOrigin { secure in
            try await withTestOrigin { plain in
                try await withDownloader(Self.config()) { downloader in
                    secure.setRoute("/a.img", .data(picture))
                    plain.setRoute("/go", .redirect(to: secure.url("/a.img").absoluteString))
                    let error = await #expect(throws: WebImageError.self) {
                        try await downloader.loadImage(plain.url("/go"), context: .testing(coder))
                    }
                    #expect(error?.code == .tlsFailure)
                    #expect(secure.requestCount("/a.img") == 0)
                    let allowed = try await downloader.loadImage(plain.url("/go"), options: [.allowInvalidSSLCertificates],
                                                                 context: .testing(coder))
                    #expect(allowed.response?.url == secure.url("/a.img"))
                    #expect(allowed.image != nil)
                }
            }
        }
    }
}
