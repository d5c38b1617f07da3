import Foundation
import Testing
import WebImage

/// ``ImageServerURL`` and ``ImageServerSigner`` against imgproxy's signing vectors (the imgproxy
/// URL API reference: `examples/signature.java`, `signing_url.mdx`, `security/signature_test.go`,
/// and HMACs computed with Python's `hmac`), and the paths they write.
@Suite("Image server URL builder")
struct ImageServerURLTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    static let source = "http://img.example.com/pretty/image.jpg"

    @Test func plainSourceMatchesImgproxysExample() throws {
        let url = try ImageServerURL(source: Self.source).resize(.fit, width: 300, height: 300)
        #expect(try url.path() == "/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg")
        let signer = try ImageServerSigner(key: Self.key, salt: Self.salt)
        #expect(try url.signedPath(with: signer)
                == "/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg")
        let short = try ImageServerSigner(key: Self.key, salt: Self.salt, signatureSize: 8)
        #expect(try url.signedPath(with: short).hasPrefix("/m3k5QADfcKM/"))
    }

    @Test func base64SourcesAndExtensions() throws {
        let signer = try ImageServerSigner(key: Self.key, salt: Self.salt)
        let url = try ImageServerURL(source: Self.source, sourceEncoding: .base64(chunkLength: nil))
            .resize(.fit, width: 300, height: 300)
        #expect(try url.path() == "/rs:fit:300:300/aHR0cDovL2ltZy5leGFtcGxlLmNvbS9wcmV0dHkvaW1hZ2UuanBn")
        #expect(signer.signature(for: try url.path()) == "u2SLSILeNtH2I29YXN20YiliFFEG1K3_-XKZH-t-jvM")
        var png = url
        png.fileExtension = "png"
        #expect(signer.signature(for: try png.path()) == "XKufL-dXGOamImg12ByLlGJXxElxC63lePLySOmXZyM")
        var chunked = url
        chunked.sourceEncoding = .base64(chunkLength: 16)
        #expect(try chunked.path() == "/rs:fit:300:300/aHR0cDovL2ltZy5l/eGFtcGxlLmNvbS9w/cmV0dHkvaW1hZ2Uu/anBn")
        #expect(signer.signature(for: try chunked.path()) == "52xnpFJzzFp4YI8sbPXiuu0iXDI4hmt8n91QL01_ueo")
    }

    /// The example of imgproxy's signing documentation, built option by option.
    @Test func theDocumentedSigningExample() throws {
        let url = try ImageServerURL(source: "http://example.com/images/curiosity.jpg",
                                     sourceEncoding: .base64(chunkLength: 16), fileExtension: "png")
            .option("rs", "fill", "300", "400", "0").option("g", "sm")
        let signer = try ImageServerSigner(key: "736563726574", salt: "68656C6C6F")
        #expect(try url.signedPath(with: signer)
                == "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
    }

    @Test func rawKeysSign() throws {
        let signer = try ImageServerSigner(rawKey: Array("test-key".utf8), rawSalt: Array("test-salt".utf8))
        #expect(signer.signature(for: "/asd") == "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20")
    }

    @Test func unsignedURLsUseTheInsecureSegmentAndABase() throws {
        let url = try ImageServerURL(source: "https://example.com/a b?c=1@2#x%").quality(80)
            .preset("thumb", "sharp").format("webp")
        #expect(try url.signedPath(with: nil)
                == "/insecure/q:80/pr:thumb:sharp/f:webp/plain/https://example.com/a%20b%3Fc=1%402%23x%25")
        let full = try url.url(base: URL(string: "https://img.example.com/prefix/")!, signer: nil)
        #expect(full.absoluteString.hasPrefix("https://img.example.com/prefix/insecure/q:80/"))
        var withExtension = url
        withExtension.fileExtension = "png"
        #expect(try withExtension.path().hasSuffix("%25@png"))
    }

    @Test func sizingForPointsAndScale() throws {
        let base = ImageServerURL(source: Self.source)
        #expect(try base.sized(forPoints: 120.2, 80, scale: 3).path().hasPrefix("/rs:fit:121:80/dpr:3/plain/"))
        #expect(try base.sized(forPoints: 100, 0, scale: 1.5, type: .fill).path().hasPrefix("/rs:fill:100:0/dpr:1.5/"))
        #expect(try base.sized(forPoints: 100, 50, scale: 1).path().hasPrefix("/rs:fit:100:50/plain/"))
        #expect(try base.sized(forPixels: PixelSize(width: 640, height: 480), type: .fillDown).path()
                .hasPrefix("/rs:fill-down:640:480/plain/"))
    }

    @Test func formatFromWhatTheClientAccepts() throws {
        #expect(ImageServerURL.preferredFormat(accept: "image/avif,image/webp,image/apng,*/*;q=0.8") == "avif")
        #expect(ImageServerURL.preferredFormat(accept: "image/avif;q=0, image/webp") == "webp")
        #expect(ImageServerURL.preferredFormat(accept: "image/*,*/*") == nil)
        #expect(ImageServerURL.preferredFormat(accept: "IMAGE/WEBP") == "webp")
        #expect(ImageServerURL.preferredFormat(accept: "image/jxl, image/avif", preferring: ["jxl", "avif"]) == "jxl")
        #expect(ImageServerURL.preferredFormat(accept: String(repeating: "x,", count: 100_000)) == nil)
        let url = ImageServerURL(source: Self.source)
        #expect(try url.choosingFormat(accept: "image/webp").path().hasPrefix("/f:webp/"))
        #expect(try url.choosingFormat(accept: "text/html").options.isEmpty)
    }

    @Test func valuesTheServerWouldRefuseThrow() throws {
        let url = ImageServerURL(source: Self.source)
        #expect(throws: WebImageError.self) { try url.resize(width: -1, height: 10) }
        #expect(throws: WebImageError.self) { try url.resize(width: 10, height: Int.max) }
        #expect(throws: WebImageError.self) { try url.quality(101) }
        #expect(throws: WebImageError.self) { try url.dpr(0) }
        #expect(throws: WebImageError.self) { try url.dpr(.nan) }
        #expect(throws: WebImageError.self) { try url.dpr(.infinity) }
        #expect(throws: WebImageError.self) { try url.sized(forPoints: .nan, 10, scale: 2) }
        #expect(throws: WebImageError.self) { try url.sized(forPoints: 1e300, 10, scale: 2) }
        #expect(throws: WebImageError.self) { try url.sized(forPoints: 10, 10, scale: -2) }
        #expect(throws: WebImageError.self) { try url.option("w", "1/2") }
        #expect(throws: WebImageError.self) { try url.option("w", "1:2") }
        #expect(throws: WebImageError.self) { try url.option("", "1") }
        #expect(throws: WebImageError.self) { try url.option("bad name", "1") }
        #expect(throws: WebImageError.self) { try url.preset() }
        #expect(throws: WebImageError.self) { try url.format("we/bp") }
        #expect(throws: WebImageError.self) { try ImageServerURL(source: "").path() }
        var badExtension = url
        badExtension.fileExtension = "p.ng"
        #expect(throws: WebImageError.self) { try badExtension.path() }
        var badChunk = url
        badChunk.sourceEncoding = .base64(chunkLength: 0)
        #expect(throws: WebImageError.self) { try badChunk.path() }
        #expect(throws: WebImageError.self) { try ImageServerSigner(key: "abc", salt: "00") }
        #expect(throws: WebImageError.self) { try ImageServerSigner(key: "zz", salt: "00") }
        #expect(throws: WebImageError.self) { try ImageServerSigner(key: "", salt: "00") }
        #expect(throws: WebImageError.self) { try ImageServerSigner(key: "00", salt: "0") }
        #expect(throws: WebImageError.self) { try ImageServerSigner(key: "00", salt: "00", signatureSize: 0) }
        #expect(throws: WebImageError.self) { try ImageServerSigner(key: "00", salt: "00", signatureSize: 33) }
    }
}
