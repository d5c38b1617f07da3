import Foundation
import Testing
@testable import WebImageCodecs

/// 16-bit PNG samples become 8 bits by rounding (`v × 255 / 65535`), not by dropping the low byte.
@Suite("PNG 16-bit rounding")
struct PNG16BitRoundingTests {
    func decode16(_ samples: [UInt16], colorType: UInt8) throws -> Bitmap {
        let row = samples.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let data = PNGFixtures.png(width: 1, height: 1, depth: 16, colorType: colorType, rows: [row])
        return try PNGCoder().decode(data, options: .default).bitmap
    }

    @Test func rgbaSamplesAreRounded() throws {
        // In 8 bits (v / 257): 0x01C0 is 1.74 and 0x3FC0 63.50, which round up (dropping the low
        // byte gives 1 and 63); 0x1290 is 18.49 and 0x7F7F exactly 127.
        let pixel = try decode16([0x01C0, 0x1290, 0x3FC0, 0x7F7F], colorType: PNGFixtures.rgba).pixel(x: 0, y: 0)
        #expect(pixel == RGBA(r: 2, g: 18, b: 64, a: 127))
    }

    @Test func graySamplesAreRounded() throws {
        // 0x00FF is 0.99: 1, where dropping the low byte gives 0.
        let pixel = try decode16([0x00FF], colorType: PNGFixtures.gray).pixel(x: 0, y: 0)
        #expect(pixel == RGBA(r: 1, g: 1, b: 1, a: 255))
    }

    @Test func extremesStayExact() throws {
        let pixel = try decode16([0, 0xFFFF, 0x8080, 0xFFFF], colorType: PNGFixtures.rgba).pixel(x: 0, y: 0)
        #expect(pixel == RGBA(r: 0, g: 255, b: 128, a: 255))
    }
}
