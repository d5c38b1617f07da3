import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The allow-list compares scheme, host, port and path, never the URL's text.
@Suite("Source allow-list")
struct SourceAllowListTests {
    private func admits(_ prefixes: [String], _ url: String) throws -> Bool {
        try SourceAllowList(prefixes).admits(try #require(URL(string: url)))
    }

    @Test func anOriginPrefixAdmitsOnlyThatOrigin() throws {
        let origin = ["http://a.com"]
        for url in ["http://a.com/", "http://a.com", "http://A.COM:80/x.jpg", "http://a.com./x", "http://a.com:/x",
                    "http://user@a.com/x"] {
            #expect(try admits(origin, url), "\(url)")
        }
        for url in ["http://a.com.evil.net/", "http://a.com@evil.net/", "http://a.comevil.net/", "https://a.com/",
                    "http://a.com:8080/", "http://b.a.com/", "http://a.com:99999/", "ftp://a.com/"] {
            #expect(try !admits(origin, url), "\(url)")
        }
        #expect(try admits(["https://a.com:443/"], "https://a.com/x"), "default ports are one origin")
        #expect(try admits(["http://[::1]:8080"], "http://[0:0::1]:8080/x"), "address literals are compared as addresses")
    }

    @Test func aPathPrefixIsComparedBySegmentAfterDecoding() throws {
        let directory = ["https://cdn.com/images/"]
        #expect(try admits(directory, "https://cdn.com/images/a.jpg"))
        #expect(try admits(directory, "https://cdn.com/images/sub/a%20b.jpg"))
        #expect(try admits(directory, "https://cdn.com/images/./a.jpg"))
        for url in ["https://cdn.com/images", "https://cdn.com/imagesX/a.jpg", "https://cdn.com/images/../secret.jpg",
                    "https://cdn.com/images/%2e%2e/secret.jpg", "https://cdn.com/images%2F..%2Fsecret.jpg",
                    "https://cdn.com/images/..%5Csecret.jpg", "https://cdn.com/other/images/a.jpg"] {
            #expect(try !admits(directory, url), "\(url)")
        }
        let name = ["https://cdn.com/images"]
        #expect(try admits(name, "https://cdn.com/images"))
        #expect(try admits(name, "https://cdn.com/images/a.jpg"))
        #expect(try !admits(name, "https://cdn.com/images-private/a.jpg"))
        #expect(try admits(["https://cdn.com/images", "https://other.com/"], "https://other.com/x.png"))
    }

    @Test(arguments: ["ftp://a.com/", "http://a.com:99999/", "http://a.com/?q=1", "http://a.com/#f", "http://u@a.com/",
                      "not a url", "http://999.0.0.1/", ""])
    func aMalformedPrefixIsRefused(prefix: String) {
        let error = #expect(throws: WebImageError.self) { try SourceAllowList([prefix]) }
        #expect(error?.code == .invalidURL)
        #expect(error?.message.contains("allowed source") == true, "\(String(describing: error?.message))")
    }
}
