import Foundation
import Testing
@testable import WebImageCodecs
@testable import WebImageLoading

/// The checks every URL passes before the downloader hands it to the HTTP client.
@Suite("URL origin checks")
struct URLOriginTests {
    private func origin(_ text: String) throws -> URLOrigin {
        try URLOrigin(validating: try #require(URL(string: text), "Foundation parses \(text)"))
    }

    private func refusal(_ text: String) throws -> WebImageError? {
        let url = try #require(URL(string: text), "Foundation parses \(text)")
        do {
            let accepted = try URLOrigin(validating: url)
            Issue.record("\(text) was accepted as \(accepted)")
            return nil
        } catch {
            return error
        }
    }

    @Test func schemeHostAndPortAreNormalised() throws {
        #expect(try origin("http://Images.Example.COM/a.jpg").description == "http://images.example.com:80")
        #expect(try origin("HTTPS://a.com./x").description == "https://a.com:443")
        #expect(try origin("http://a.com:8080").port == 8080)
        #expect(try origin("http://a.com:/x").port == 80, "an empty port is the default")
        #expect(try origin("http://a.com:080/x").port == 80)
        #expect(try origin("http://[::1]:9/").host == "::1")
        #expect(try origin("http://[::FFFF:127.0.0.1]/").description == "http://[::ffff:127.0.0.1]:80")
        #expect(try origin("http://user:pw@a.com:81/").description == "http://a.com:81")
        #expect(try origin("http://a.com@evil.net/").host == "evil.net")
        #expect(try origin("http://127.0.0.1:65535/").port == 65535)
        #expect(try origin("http://a_b-c.example/").host == "a_b-c.example")
    }

    @Test(arguments: ["0", "65536", "70000", "99999", "2147483648", "99999999999999999999"])
    func aPortOutsideTheValidRangeIsRefused(port: String) throws {
        let error = try #require(try refusal("http://127.0.0.1:\(port)/x.jpg"))
        #expect(error.code == .invalidURL)
        #expect(error.message.contains("port \(port)") && error.message.contains("1 to 65535"), "\(error.message)")
        #expect(try refusal("http://[::1]:\(port)/")?.code == .invalidURL)
        #expect(try refusal("https://example.com:\(port)/")?.code == .invalidURL)
    }

    @Test(arguments: [
        "http:///x.jpg", "http://:80/x", "http://[zz]/", "http://[fe80::1%25eth0]/",
        "http://999.1.1.1/", "http://1.2.3/", "http://0x7f.1/", "http://2130706433/", "http://010.0.0.1/",
        "http://1.2.3.4./", "http://%41.com/", "http://a..com/",
        "http://\(String(repeating: "a", count: 64)).com/", "ftp://a.com/x", "file:///tmp/x",
    ])
    func aMalformedHostOrSchemeIsRefused(text: String) throws {
        let error = try #require(try refusal(text))
        #expect(error.code == .invalidURL)
        #expect(error.message.contains("cannot be requested"), "\(error.message)")
    }
}
