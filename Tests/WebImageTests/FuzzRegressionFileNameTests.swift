import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Cache keys that crashed the key -> file-name function under fuzz-filename: keys that are not
/// URLs went through `NSString.pathExtension`, which traps on Linux for some of them.
@Suite("Fuzz regressions: cache file names")
struct FuzzRegressionFileNameTests {
    /// 32 lowercase hex digits, then optionally `.` and 1...222 ASCII letters or digits.
    private func expectSafeName(_ name: String, forKey key: String) {
        let bytes = Array(name.utf8)
        let hex = bytes.prefix(32)
        #expect(hex.count == 32 && hex.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) },
                "\(name) for \(key.debugDescription)")
        #expect(name.hasPrefix(DiskCacheFileName.legacyName(forKey: key)))
        if bytes.count > 32 {
            let ext = bytes[33...]
            #expect(bytes[32] == UInt8(ascii: "."))
            #expect((1...222).contains(ext.count))
            #expect(ext.allSatisfy { $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber) })
        }
        #expect(!name.contains("/"))
    }

    /// The fuzzer's reproducer (invalid UTF-8 bytes become U+FFFD): `pla$:kx.gifess:h?no-h//?`.
    @Test func fuzzedKeyWithDoubleSlashAndNonASCIITailGetsAName() {
        let bytes: [UInt8] = [0x70, 0x6C, 0x61, 0x24, 0x3A, 0x6B, 0x78, 0x2E, 0x67, 0x69, 0x66, 0x65, 0x73, 0x73,
                              0x3A, 0x68, 0xD1, 0x6E, 0x6F, 0x2D, 0x68, 0x2F, 0x2F, 0xDF]
        let key = String(decoding: bytes, as: UTF8.self)
        #expect(URL(string: key) == nil) // the path that used NSString
        let name = DiskCacheFileName.name(forKey: key)
        expectSafeName(name, forKey: key)
        #expect(name.count == 32) // the last component "h�" has no extension
    }

    /// Hand-made keys of the same shapes: not URLs, and `//` before a non-ASCII character or
    /// `////.//` (both trap in Foundation's NSString path code on Linux).
    @Test(arguments: ["http://x:port//é", "https://[bad//é", "http://a b.com//é", "b////.//",
                      "http://x:port////.//"])
    func nonURLKeysThatTrappedNSStringGetANameWithoutExtension(_ key: String) {
        let name = DiskCacheFileName.name(forKey: key)
        expectSafeName(name, forKey: key)
        #expect(name == DiskCacheFileName.legacyName(forKey: key))
    }

    /// Keys that are not URLs still keep their extension, as NSString's rule gives it.
    @Test func nonURLKeysKeepTheirExtension() {
        #expect(URL(string: "http://x:port/a/photo.JPG") == nil)
        #expect(DiskCacheFileName.name(forKey: "http://x:port/a/photo.JPG").hasSuffix(".JPG"))
        #expect(DiskCacheFileName.plainPathExtension("dir.d/file.tar.gz/") == "gz")
        #expect(DiskCacheFileName.plainPathExtension("a/.hidden") == "")
        #expect(DiskCacheFileName.plainPathExtension("name.") == "")
        #expect(DiskCacheFileName.plainPathExtension("dir.d/") == "d")
        #expect(DiskCacheFileName.plainPathExtension("") == "")
    }

    /// The parser-free path for plain `scheme://host/path` keys gives what the URL parser gives.
    @Test func simpleKeysAgreeWithTheURLParser() {
        let keys = ["https://example.com/images/1.jpg", "http://h.com", "http://h.com/", "http://h.com//",
                    "http://h/a.b.c", "http://h/.hidden", "http://h/a.", "http://h/a.jpg/", "http://h/a.jpg/..",
                    "http://x:port/a/photo.JPG", "1http://h/a.jpg", "http://h/a.jpg?x=1.png", "http://h/a#b.gif",
                    "http://h/%41.png", "http://h/a b.png", "file:///tmp/x.webp", "data:image/png;base64,AAAA",
                    "http://[::1]:8080/p/q.PNG", "http://h/dir.d/", "http://h/a;p=1.tiff", "s3://bucket/k/v.avif"]
        for key in keys {
            guard let fast = DiskCacheFileName.simpleURLPathExtension(key) else { continue }
            let parsed = URL(string: key).map(\.pathExtension) ?? String(DiskCacheFileName.plainPathExtension(key))
            #expect(String(fast) == parsed, "\(key)")
        }
        #expect(DiskCacheFileName.simpleURLPathExtension("https://example.com/images/1.jpg") == "jpg")
        #expect(DiskCacheFileName.simpleURLPathExtension("http://h/a.jpg?x=1") == nil)
        #expect(DiskCacheFileName.legacyName(forKey: "") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(DiskCacheFileName.pathExtension(forKey: "http://h/a.j:p-g_1") == "jpg1")
        #expect(DiskCacheFileName.pathExtension(forKey: "http://h/a." + String(repeating: "x", count: 222)).count == 222)
        #expect(DiskCacheFileName.pathExtension(forKey: "http://h/a." + String(repeating: "x", count: 223)) == "")
        #expect(DiskCacheFileName.pathExtension(forKey: "http://h/a.ｐｎｇ") == "")
    }
}
