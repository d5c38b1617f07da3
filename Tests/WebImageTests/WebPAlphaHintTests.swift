import Foundation
import Testing
@testable import WebImageCodecs

/// A WebP that says it has no alpha (no VP8X alpha flag, the VP8L header's alpha hint clear) is
/// shown opaque, as libwebp's `dwebp` shows it, even where its lossless bitstream decodes alpha
/// values (libwebp's `bad_palette_index.webp`: palette indices past the palette's end).
@Suite("WebP alpha hint")
struct WebPAlphaHintTests {
    /// A lossless 4×4 WebP of half-transparent orange whose headers are then set to say "no alpha".
    static func losslessSayingNoAlpha() throws -> Data {
        let color = RGBA(r: 200, g: 100, b: 50, a: 128)
        var bytes = [UInt8](try WebPFixtures.encode(Bitmap(width: 4, height: 4, fill: color), lossless: true))
        let vp8l = try #require(Self.find("VP8L", in: bytes))
        // The chunk header (8 bytes), the signature byte, then 14 + 14 bits of size: bit 28 of
        // the 32-bit little-endian word after the signature is the alpha hint.
        let hint = vp8l + 8 + 1 + 3
        #expect(bytes[hint] & 0x10 != 0, "the encoder marked the alpha")
        bytes[hint] &= ~0x10
        if let vp8x = Self.find("VP8X", in: bytes) { bytes[vp8x + 8] &= ~0x10 }
        return Data(bytes)
    }

    static func find(_ tag: String, in bytes: [UInt8]) -> Int? {
        let tag = Array(tag.utf8)
        return (12..<max(bytes.count - 4, 12)).first { Array(bytes[$0..<$0 + 4]) == tag }
    }

    @Test func aFileSayingNoAlphaIsShownOpaque() throws {
        let image = try WebPCoder().decode(try Self.losslessSayingNoAlpha(), options: .default)
        for y in 0..<4 {
            for x in 0..<4 { #expect(image.bitmap.pixel(x: x, y: y) == RGBA(r: 200, g: 100, b: 50)) }
        }
    }
}
