import Foundation
import Testing
@testable import WebImageLoading

/// Field names compare as RFC 9110 defines them: ASCII letters without case, every other byte
/// exactly.
@Suite("HTTP header names")
struct HTTPHeaderNameTests {
    @Test("letters match in any case; length, digits and symbols must agree")
    func asciiLettersIgnoreCase() {
        #expect(HTTPHeaderName.matches("Content-Type", "content-type"))
        #expect(HTTPHeaderName.matches("ETAG", "ETag"))
        #expect(HTTPHeaderName.matches("x-B3-TraceId", "X-b3-traceid"))
        #expect(HTTPHeaderName.matches("", ""))
        #expect(!HTTPHeaderName.matches("Content-Type", "Content-Typ"))
        #expect(!HTTPHeaderName.matches("Content-Type", "Content_Type"))
        #expect(!HTTPHeaderName.matches("X-1", "X-2"))
    }

    @Test("bytes that differ only in bit 5 but are not letters do not match")
    func nonLettersAreExact() {
        // '[' (0x5B) and '{' (0x7B), '@' (0x40) and '`' (0x60), '-' (0x2D) and CR (0x0D).
        #expect(!HTTPHeaderName.matches("a[", "a{"))
        #expect(!HTTPHeaderName.matches("@", "`"))
        #expect(!HTTPHeaderName.matches("a-b", "a\rb"))
    }

    @Test("non-ASCII bytes must match exactly")
    func nonASCIIIsExact() {
        #expect(HTTPHeaderName.matches("X-Größe", "x-größe"))
        #expect(!HTTPHeaderName.matches("X-Ä", "X-ä"))
    }

    @Test("header lists use it: lookup, replacement and the freshness header")
    func headerListsUseIt() {
        var headers = [HTTPHeaderField(name: "cache-control", value: "max-age=60"),
                       HTTPHeaderField(name: "ETAG", value: "\"v1\"")]
        #expect(headers[header: "ETag"] == "\"v1\"")
        #expect(headers[header: "E-Tag"] == nil)
        headers.set("Etag", "\"v2\"")
        #expect(headers.filter { $0.value.hasPrefix("\"v") }.map(\.value) == ["\"v2\""])
        headers.set("ETag", nil)
        #expect(headers[header: "etag"] == nil)
        #expect(HTTPFreshness(headers: headers, receivedAt: .init(timeIntervalSince1970: 0))?.maxAge == 60)
    }
}
