import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("CacheKey rules")
struct CacheKeyTests {
    static let flip = "SDImageFlippingTransformer(1,0)"

    /// SDWebImage's SDTransformedKeyForKey examples, verbatim (T = the flipping transformer key).
    @Test(arguments: [
        ("image.png", "image-T.png"),
        ("image", "image-T"),
        (".image", ".image-T"),
        ("image.", "image.-T"),
        ("Test/image.png", "Test/image-T.png"),
        ("http://foo/image.png", "http://foo/image-T.png"),
        ("http://foo/image", "http://foo/image-T"),
        ("http://foo/.image", "http://foo/.image-T"),
        ("http://foo/image.png?foo=bar#mark", "http://foo/image-T.png?foo=bar#mark"),
        ("ftp://root:password@foo.com/image.png", "ftp://root:password@foo.com/image-T.png"),
    ])
    func transformedKeyExamples(key: String, expected: String) {
        let result = CacheKey.transformedKey(for: key, transformerKey: Self.flip)
        #expect(result == expected.replacingOccurrences(of: "-T", with: "-" + Self.flip))
    }

    @Test func foundationSeesNoExtensionInDotNames() {
        // Why `.image` and `image.` get the key appended: Foundation reports no extension.
        #expect(URL(string: ".image")?.pathExtension == "")
        #expect(URL(string: "image.")?.pathExtension == "")
        #expect(URL(string: "image.png")?.pathExtension == "png")
    }

    @Test func otherShapes() {
        let t = "X"
        #expect(CacheKey.transformedKey(for: "file:///tmp/a.png", transformerKey: t) == "file:///tmp/a-X.png")
        #expect(CacheKey.transformedKey(for: "http://foo/a.jpg?x=1.2", transformerKey: t) == "http://foo/a-X.jpg?x=1.2")
        #expect(CacheKey.transformedKey(for: "http://foo/a?x=1", transformerKey: t) == "http://foo/a?x=1-X")
        #expect(CacheKey.transformedKey(for: "http://foo/dir.d/a.b.webp", transformerKey: t)
                == "http://foo/dir.d/a.b-X.webp")
        #expect(CacheKey.transformedKey(for: "", transformerKey: t) == "-X")
        #expect(CacheKey.transformedKey(for: "http://foo/a.png/", transformerKey: t) == "http://foo/a-X.png/")
        // Kept verbatim: nothing is percent-encoded.
        #expect(CacheKey.transformedKey(for: "http://foo/a b.png#x", transformerKey: "{1}")
                == "http://foo/a b-{1}.png#x")
    }

    @Test func thumbnailKeyExample() {
        let key = CacheKey.thumbnailKey(for: "http://foo/a.png", size: PixelSize(width: 100, height: 100),
                                        preserveAspectRatio: true)
        #expect(key == "http://foo/a-Thumbnail({100.000000,100.000000},1).png")
        #expect(CacheKey.isThumbnailKey(key))
        #expect(!CacheKey.isThumbnailKey("http://foo/a.png"))
        #expect(CacheKey.thumbnailTransformerKey(width: 12.5, height: 3, preserveAspectRatio: false)
                == "Thumbnail({12.500000,3.000000},0)")
        #expect(CacheKey.thumbnailKey(for: "img", width: 1, height: 2, preserveAspectRatio: false)
                == "img-Thumbnail({1.000000,2.000000},0)")
    }

    @Test func thumbnailComesBeforeTransformer() {
        let thumb = CacheKey.thumbnailKey(for: "http://foo/a.png", width: 10, height: 20,
                                          preserveAspectRatio: true)
        let both = CacheKey.transformedKey(for: thumb, transformerKey: Self.flip)
        #expect(both == "http://foo/a-Thumbnail({10.000000,20.000000},1)-\(Self.flip).png")
        #expect(CacheKey.isThumbnailKey(both))
    }

    @Test func keyFilters() throws {
        let url = try #require(URL(string: "https://cdn.example.com/p/cat.jpg?X-Amz-Signature=abc&t=1#frag"))
        #expect(CacheKeyFilter.absoluteString.key(for: url) == url.absoluteString)
        #expect(CacheKeyFilter.droppingQuery.key(for: url) == "https://cdn.example.com/p/cat.jpg#frag")
        let plain = try #require(URL(string: "https://cdn.example.com/p/cat.jpg"))
        #expect(CacheKeyFilter.droppingQuery.key(for: plain) == plain.absoluteString)
        let skipping = CacheKeyFilter { $0.host == "private.example.com" ? nil : $0.lastPathComponent }
        #expect(skipping.key(for: url) == "cat.jpg")
        #expect(skipping.key(for: try #require(URL(string: "https://private.example.com/a.png"))) == nil)
    }
}

@Suite("CacheKey odd keys")
struct CacheKeyOddKeyTests {
    /// Keys on which Foundation's NSString path code traps on Linux must not crash key derivation.
    @Test(arguments: ["b////.//", "http://x:port//é", "https://[bad//é", "http://a b.com//é", "pla$:kx.gif//ß"])
    func transformedKeyOfOddKey(key: String) {
        let derived = CacheKey.transformedKey(for: key, transformerKey: "T")
        #expect(derived.contains("-T"))
    }
}
