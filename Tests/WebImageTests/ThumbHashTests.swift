import Foundation
import Testing
import WebImageCodecs

/// ThumbHash against the reference (evanw/thumbhash, js/thumbhash.js): hashes of known pixels,
/// the size, pixels and average colour the reference decodes them to, and hostile hashes.
@Suite("ThumbHash matches the reference")
struct ThumbHashTests {
    struct Vector: Sendable {
        let name: String
        let bitmap: Bitmap
        /// The reference encoder's hash, base64.
        let hash: String
        /// The reference decoder's output size (longer side 32).
        let size: PixelSize
        /// The reference decoder's pixels at (0, 0), the middle (w/2, h/2) and (w − 1, h − 1).
        let pixels: [RGBA]
        let aspectRatio: Double
    }

    static let vectors: [Vector] = [
        Vector(name: "gradient", bitmap: PlaceholderTestImages.gradient, hash: "4RYGbZpyd4dwiHiIiHiHh3CCCPeI",
               size: PixelSize(width: 32, height: 23),
               pixels: [RGBA(r: 32, g: 11, b: 255), RGBA(r: 130, g: 111, b: 150), RGBA(r: 234, g: 213, b: 24)],
               aspectRatio: 1.4),
        Vector(name: "halfTransparent", bitmap: PlaceholderTestImages.halfTransparent,
               hash: "IsmKSxIrgGF3eHeDn/iHeN9wh3h3h3g=", size: PixelSize(width: 19, height: 32),
               pixels: [RGBA(r: 193, g: 1, b: 0, a: 224), RGBA(r: 199, g: 86, b: 123, a: 129),
                        RGBA(r: 199, g: 201, b: 170, a: 221)],
               aspectRatio: 0.6),
        Vector(name: "stripes", bitmap: PlaceholderTestImages.stripes, hash: "HggKaoZ2dXWAiIiIh48IiIg=",
               size: PixelSize(width: 32, height: 9),
               pixels: [RGBA(r: 110, g: 128, b: 0), RGBA(r: 121, g: 119, b: 133), RGBA(r: 166, g: 128, b: 238)],
               aspectRatio: 3.5),
        Vector(name: "orange", bitmap: PlaceholderTestImages.orange, hash: "4P0CBYA4eix4iIiIiPiHdQmW7LAZ",
               size: PixelSize(width: 32, height: 23),
               pixels: [RGBA(r: 255, g: 130, b: 2), RGBA(r: 255, g: 130, b: 2), RGBA(r: 255, g: 130, b: 2)],
               aspectRatio: 1.4),
        Vector(name: "tall", bitmap: PlaceholderTestImages.tall, hash: "HluJIQxYcDiIiXp3aw9oQ3h4j4eIWHg=",
               size: PixelSize(width: 6, height: 32),
               pixels: [RGBA(r: 33, g: 248, b: 0), RGBA(r: 127, g: 172, b: 86, a: 117), RGBA(r: 131, g: 205, b: 53, a: 26)],
               aspectRatio: 0.2),
    ]

    /// Noise has no component that is numerically zero, so every byte matches the reference's.
    static let exactVectors: [(String, Bitmap, String)] = [
        ("noise 24x18", PlaceholderTestImages.noise(24, 18, alpha: false, seed: 1), "HwgCDYLYqo1Ay9Y6RHmXvB+D6VT8"),
        ("noise 15x20 alpha", PlaceholderTestImages.noise(15, 20, alpha: true, seed: 7),
         "4QeCDAIHj6GZZnV2l/lF+FjP+QaFxZgjCg=="),
        ("noise 100x9", PlaceholderTestImages.noise(100, 9, alpha: false, seed: 3), "H+gBAYKX94gsd0Z5P2t1Pxo="),
        ("stripes", PlaceholderTestImages.stripes, "HggKaoZ2dXWAiIiIh48IiIg="),
    ]

    @Test func encodingMatchesTheReference() throws {
        for (name, bitmap, hash) in Self.exactVectors {
            #expect(ThumbHash.base64(ThumbHash.encode(bitmap)) == hash, "\(name)")
        }
    }

    /// Smooth and flat images have components that are zero but for rounding, which lands a
    /// quantised value on a tie (7.5): there the reference's JavaScript `Math.cos` and the C
    /// library's differ in the last bit and round the tie apart. The header (colours, scales,
    /// shape) matches exactly; each component nibble within 1. A flat image's components are all
    /// rounding noise, scaled up to full range by their own maximum: only its header is compared.
    @Test func smoothImagesMatchTheReferenceUpToTies() throws {
        for vector in Self.vectors {
            let expected = try ThumbHash.bytes(base64: vector.hash), actual = ThumbHash.encode(vector.bitmap)
            #expect(actual.count == expected.count, "\(vector.name)")
            let header = expected[2] & 0x80 != 0 ? 6 : 5
            #expect(Array(actual.prefix(header)) == Array(expected.prefix(header)), "\(vector.name)")
            for (a, e) in zip(actual.dropFirst(header), expected.dropFirst(header)) where vector.name != "orange" {
                #expect(abs(Int(a & 15) - Int(e & 15)) <= 1 && abs(Int(a >> 4) - Int(e >> 4)) <= 1, "\(vector.name)")
            }
        }
    }

    @Test func decodingMatchesTheReference() throws {
        for vector in Self.vectors {
            let hash = try ThumbHash.bytes(base64: vector.hash)
            let image = try ThumbHash.decode(hash)
            #expect(image.pixelSize == vector.size, "\(vector.name)")
            let w = image.width, h = image.height
            let points = [(0, 0), (w / 2, h / 2), (w - 1, h - 1)]
            for ((x, y), expected) in zip(points, vector.pixels) {
                #expect(image.bitmap.pixel(x: x, y: y) == expected, "\(vector.name) at \(x),\(y)")
            }
            #expect(abs(try ThumbHash.aspectRatio(of: hash) - vector.aspectRatio) < 1e-9)
        }
    }

    /// Hashes published with ThumbHash users' tests (a portrait photo, flower.jpg) against the
    /// reference decoder's output.
    @Test func publishedHashesDecodeAsTheReferenceDoes() throws {
        let portrait = try ThumbHash.bytes(base64: "1QcSHQRnh493V4dIh4eXh1h4kJUI")
        let image = try ThumbHash.decode(portrait)
        #expect(image.pixelSize == PixelSize(width: 23, height: 32))
        #expect(image.bitmap.pixel(x: 0, y: 0) == RGBA(r: 64, g: 77, b: 113))
        #expect(image.bitmap.pixel(x: 11, y: 16) == RGBA(r: 140, g: 109, b: 88))
        #expect(image.bitmap.pixel(x: 22, y: 31) == RGBA(r: 0, g: 4, b: 39))
        let flower = try ThumbHash.bytes(base64: "k0oGLQaSVsN0BVhn2oq2Z5SQUQcZ")
        let flowerImage = try ThumbHash.decode(flower)
        #expect(flowerImage.bitmap.pixel(x: 11, y: 16) == RGBA(r: 160, g: 94, b: 6))
        // The reference's average: r 0.484127, g 0.341270, b 0.079365, a 1.
        #expect(try ThumbHash.averageColor(of: flower) == RGBA(r: 123, g: 87, b: 20))
    }

    @Test func decodesAtTheSizeAsked() throws {
        let hash = try ThumbHash.bytes(base64: "IsmKSxIrgGF3eHeDn/iHeN9wh3h3h3g=")
        let small = try ThumbHash.decode(hash, maximumSide: 10)
        #expect(small.pixelSize == PixelSize(width: 6, height: 10))
        let exact = try ThumbHash.decode(hash, width: 40, height: 7)
        #expect(exact.pixelSize == PixelSize(width: 40, height: 7))
        #expect(exact.hasAlpha)
        #expect(try ThumbHash.averageColor(of: hash).a < 255)
    }

    /// The URL-safe alphabet and missing padding read the same bytes.
    @Test func base64Forms() throws {
        let standard = try ThumbHash.bytes(base64: "IsmKSxIrgGF3eHeDn/iHeN9wh3h3h3g=")
        #expect(try ThumbHash.bytes(base64: "IsmKSxIrgGF3eHeDn_iHeN9wh3h3h3g") == standard)
    }

    @Test func malformedHashesThrow() throws {
        let good = try ThumbHash.bytes(base64: "4RYGbZpyd4dwiHiIiHiHh3CCCPeI")
        var noSide = good
        noSide[3] &= ~7
        let hostile: [[UInt8]] = [[], [1, 2, 3, 4], Array(good.dropLast()), good + [0],
                                  [UInt8](repeating: 255, count: 5), [UInt8](repeating: 255, count: 1000), noSide]
        for hash in hostile {
            #expect(throws: WebImageError.self) { try ThumbHash.decode(hash) }
            #expect(throws: WebImageError.self) { try ThumbHash.averageColor(of: hash) }
        }
        for text in ["not base64!", String(repeating: "A", count: 65), "€€€€"] {
            #expect(throws: WebImageError.self) { try ThumbHash.bytes(base64: text) }
        }
        for side in [0, -1, 1025, Int.max, Int.min] {
            #expect(throws: WebImageError.self) { try ThumbHash.decode(good, maximumSide: side) }
            #expect(throws: WebImageError.self) { try ThumbHash.decode(good, width: side, height: 8) }
        }
    }

    /// A large bitmap is shrunk to 100 pixels first: same hash as encoding the shrunk copy by hand.
    @Test func largeBitmapsAreShrunkFirst() {
        let big = PlaceholderTestImages.make(300, 600) { x, y in (x % 256, y % 256, 128, 255) }
        let small = Resampler.resize(big, to: PixelSize(width: 50, height: 100))
        #expect(ThumbHash.encode(big) == ThumbHash.encode(small))
    }
}
