import Foundation
import Testing
import WebImageCodecs

/// BlurHash against the reference (woltapp/blurhash): hashes of known pixels, decoded pixels of
/// published hashes, and hostile strings that must fail with an error.
@Suite("BlurHash matches the reference")
struct BlurHashTests {
    /// (image, x components, y components, the reference C encoder's hash).
    static let encodeVectors: [(String, Bitmap, Int, Int, String)] = [
        ("gradient", PlaceholderTestImages.gradient, 4, 3, "LxH2812yw#XAmLWZjuf8gLfkfQfk"),
        ("gradient", PlaceholderTestImages.gradient, 1, 1, "00H281"),
        ("gradient", PlaceholderTestImages.gradient, 9, 9,
         "|xH2812yw#XAa~ogWrogWrmLWZjuf8fRf8fRf8fRgLfkfQfkfQfjfQfjfQn-WrjufRfRfRfRfRfRe?fRfQfQfQfQfQfQfQ"
            + "ogWrjufRfRfRfQfRfQe?fRfQfQfQfQfQfQfQogWrjufRfRfRfQfRfQesfRfQfQfQfQfQfQfQ"),
        ("halfTransparent", PlaceholderTestImages.halfTransparent, 3, 4, "TpM}zPuvgJsxjFfjfUfRfQs+jHfj"),
        ("stripes", PlaceholderTestImages.stripes, 5, 2, "DsJZGrJ,fQJ,fQsxa{fQa{fQ"),
        ("orange", PlaceholderTestImages.orange, 1, 1, "00TNoS"),
        ("orange", PlaceholderTestImages.orange, 4, 4, "U*TNoS^2fQ^2}Vs-fQs-fQfQfQfQ}Vs-fQs-"),
    ]

    @Test func encodingMatchesTheReference() throws {
        for (name, bitmap, x, y, expected) in Self.encodeVectors {
            #expect(try BlurHash.encode(bitmap, xComponents: x, yComponents: y) == expected, "\(name) \(x)x\(y)")
        }
    }

    /// Published hashes (woltapp/blurhash's README, bbrks/go-blurhash's fixtures) decoded at 32×24
    /// by the reference C decoder: pixels at (x, y).
    static let decodeVectors: [(String, [(Int, Int, RGBA)])] = [
        ("LEHV6nWB2yk8pyo0adR*.7kCMdnj", [(0, 0, RGBA(r: 135, g: 164, b: 177)), (16, 12, RGBA(r: 158, g: 125, b: 108)),
                                          (31, 23, RGBA(r: 132, g: 142, b: 147)), (5, 20, RGBA(r: 141, g: 144, b: 143))]),
        ("LNMF%n00%#MwS|WCWEM{R*bbWBbH", [(0, 0, RGBA(r: 153, g: 120, b: 89)), (16, 12, RGBA(r: 187, g: 133, b: 113)),
                                          (31, 23, RGBA(r: 220, g: 193, b: 186)), (5, 20, RGBA(r: 177, g: 133, b: 114))]),
        ("KJG8_@Dgx]_4V?xuyE%NRj", [(0, 0, RGBA(r: 168, g: 169, b: 172)), (16, 12, RGBA(r: 124, g: 107, b: 104)),
                                    (31, 23, RGBA(r: 121, g: 132, b: 139)), (5, 20, RGBA(r: 112, g: 112, b: 103))]),
    ]

    /// Within 1 of the reference: its decoder computes in single precision, this one in double.
    @Test func decodingMatchesTheReference() throws {
        for (hash, pixels) in Self.decodeVectors {
            let image = try BlurHash.decode(hash, width: 32, height: 24)
            #expect(image.pixelSize == PixelSize(width: 32, height: 24))
            for (x, y, expected) in pixels {
                #expect(image.bitmap.pixel(x: x, y: y).isClose(to: expected, tolerance: 1), "\(hash) at \(x),\(y)")
            }
        }
    }

    @Test func componentsAndAverageColour() throws {
        #expect(try BlurHash.components(of: "LEHV6nWB2yk8pyo0adR*.7kCMdnj") == (4, 3))
        #expect(try BlurHash.components(of: "KJG8_@Dgx]_4V?xuyE%NRj") == (3, 3))
        #expect(try BlurHash.averageColor(of: "00TNoS") == RGBA(r: 255, g: 128, b: 0))
        // One component is the average alone: every decoded pixel is that colour.
        let flat = try BlurHash.decode("00TNoS", width: 3, height: 2)
        #expect(flat.bitmap == Bitmap(width: 3, height: 2, fill: RGBA(r: 255, g: 128, b: 0)))
    }

    @Test func punchRaisesContrast() throws {
        let hash = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"
        let plain = try BlurHash.decode(hash, width: 32, height: 24).bitmap
        let punched = try BlurHash.decode(hash, width: 32, height: 24, punch: 2).bitmap
        func spread(_ bitmap: Bitmap) -> Int {
            let reds = (0..<32).map { Int(bitmap.pixel(x: $0, y: 12).r) }
            return reds.max()! - reds.min()!
        }
        #expect(spread(punched) > spread(plain))
    }

    /// A large bitmap is shrunk to 100 pixels first: same hash as encoding the shrunk copy by hand.
    @Test func largeBitmapsAreShrunkFirst() throws {
        let big = PlaceholderTestImages.make(400, 200) { x, y in (x % 256, y, 128, 255) }
        let small = Resampler.resize(big, to: PixelSize(width: 100, height: 50))
        #expect(try BlurHash.encode(big) == BlurHash.encode(small))
    }

    static let hostileHashes: [String] = [
        "", "L", "00TNo", String(repeating: "L", count: 167), String(repeating: "0", count: 100_000),
        "LEHV6nWB2yk8pyo0adR*.7kCMdnjX", // one character too many for 4x3
        "LEHV6nWB2yk8pyo0adR*.7kCMdn€", // not ASCII
        "LEHV6nWB2yk8pyo0adR*.7kCMd\"j", // a byte outside the alphabet
        "00~~~~", // an average colour above #ffffff
        "10TNoS~~", // an AC component above 18·19² + 18·19 + 18
    ]

    @Test(arguments: hostileHashes)
    func malformedHashesThrow(_ hash: String) {
        #expect(throws: WebImageError.self) { try BlurHash.decode(hash, width: 8, height: 8) }
        #expect(throws: WebImageError.self) { try BlurHash.components(of: hash) }
    }

    @Test func outOfRangeArgumentsThrow() {
        let hash = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"
        for (w, h) in [(0, 8), (8, 0), (-1, 8), (1025, 8), (8, Int.max), (Int.min, 1)] {
            #expect(throws: WebImageError.self) { try BlurHash.decode(hash, width: w, height: h) }
        }
        for punch in [0, -1, .nan, .infinity, 101] {
            #expect(throws: WebImageError.self) { try BlurHash.decode(hash, width: 4, height: 4, punch: punch) }
        }
        for (x, y) in [(0, 3), (4, 0), (10, 3), (4, 10), (Int.max, 1), (Int.min, 1)] {
            #expect(throws: WebImageError.self) {
                try BlurHash.encode(PlaceholderTestImages.orange, xComponents: x, yComponents: y)
            }
        }
    }
}
