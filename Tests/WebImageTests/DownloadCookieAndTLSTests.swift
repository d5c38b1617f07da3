import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Download cookie jar and TLS errors")
struct DownloadCookieAndTLSTests {
    @Test func cookieJarMatchesHostDomainPathAndSecure() {
        let jar = CookieJar()
        let now = Date()
        jar.store(["a=1", "b=2; Domain=example.com; Path=/img", "s=3; Secure", "bad"],
                  from: URL(string: "http://www.example.com/img/x.png")!, now: now)
        #expect(jar.count == 3)
        #expect(jar.cookieHeader(for: URL(string: "http://www.example.com/img/y.png")!, now: now) == "a=1; b=2")
        #expect(jar.cookieHeader(for: URL(string: "http://cdn.example.com/img/y.png")!, now: now) == "b=2")
        #expect(jar.cookieHeader(for: URL(string: "http://cdn.example.com/other")!, now: now) == nil)
        #expect(jar.cookieHeader(for: URL(string: "https://www.example.com/img/z")!, now: now) == "a=1; b=2; s=3")
        #expect(jar.cookieHeader(for: URL(string: "http://example.org/img/z")!, now: now) == nil)
    }

    @Test func cookieJarRefusesForeignDomainsAndHonoursExpiry() {
        let jar = CookieJar()
        let now = Date()
        let url = URL(string: "http://www.example.com/")!
        jar.store(["x=1; Domain=evil.com", "t=1; Max-Age=10"], from: url, now: now)
        #expect(jar.count == 1)
        #expect(jar.cookieHeader(for: url, now: now) == "t=1")
        #expect(jar.cookieHeader(for: url, now: now.addingTimeInterval(11)) == nil)
        jar.store(["u=1", "u=2; Max-Age=0"], from: url, now: now)
        #expect(jar.cookieHeader(for: url, now: now) == nil)
    }

    @Test func httpsAgainstAPlainHTTPServerIsATLSFailure() async throws {
        // The handshake fails at once; a generous timeout keeps a loaded machine (or an instrumented
        // run, ten times slower) from turning it into a timeout.
        var config = DownloaderConfig()
        config.downloadTimeout = TestTimeout.download
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/a.img", .data(TestImageCoder.encode(width: 1, height: 1)))
            let url = URL(string: "https://127.0.0.1:\(origin.port)/a.img")!
            let error = await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(url, context: .testing(TestImageCoder()))
            }
            #expect(error?.code == .tlsFailure)
            #expect(downloader.shouldBlockFailedURL(url, error: error!))
        }
    }
}
