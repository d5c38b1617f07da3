import Foundation
import Testing
@testable import WebImageCodecs

/// The BMP and ICO encoders: the bytes of their headers as the formats define them, and the
/// pixels read back by the library's own decoders (gdk-pixbuf's BMP loader, the ICO coder's PNG
/// entries).
@Suite("BMP and ICO encoding")
struct BMPICOEncodingTests {
    /// Quadrants (red, green / blue, yellow) of odd width, so 24-bit rows need padding.
    let opaque = TestBitmaps.quadrants(width: 33, height: 20)

    /// A 4×2 bitmap with four alpha levels.
    let translucent = Bitmap(width: 4, height: 2, pixels: [
        255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 64, 10, 20, 30, 0,
        1, 2, 3, 255, 250, 240, 230, 200, 90, 80, 70, 10, 0, 0, 0, 255,
    ])

    private func u16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    private func u32(_ bytes: [UInt8], _ at: Int) -> Int { Int(DIBHeaderBytes.u32(bytes, at)) }

    @Test func anOpaqueBMPIs24BitBottomUpWithPaddedRows() throws {
        let bytes = [UInt8](try CodersManager.shared.encode(Image(bitmap: opaque), as: .bmp, options: .default))
        #expect(Array(bytes[0..<2]) == Array("BM".utf8))
        let rowBytes = (33 * 3 + 3) & ~3
        #expect(u32(bytes, 2) == bytes.count && bytes.count == 54 + rowBytes * 20)
        #expect(u32(bytes, 10) == 54 && u32(bytes, 14) == 40)
        #expect(u32(bytes, 18) == 33 && u32(bytes, 22) == 20 && u16(bytes, 28) == 24 && u32(bytes, 30) == 0)
        // The first stored row is the bottom one: blue, then yellow, as B, G, R.
        #expect(Array(bytes[54..<57]) == [255, 0, 0])
        #expect(Array(bytes[54 + 32 * 3..<54 + 33 * 3]) == [0, 255, 255])
        let decoded = try CodersManager.shared.decode(Data(bytes), options: .default)
        #expect(decoded.format == .bmp)
        #expect(decoded.bitmap.pixels == opaque.pixels)
    }

    @Test func aTranslucentBMPIs32BitWithAnAlphaMask() throws {
        let bytes = [UInt8](try BMPCoder().encode(Image(bitmap: translucent), as: .bmp, options: .default))
        #expect(u32(bytes, 10) == 14 + 108 && u32(bytes, 14) == 108)
        #expect(u16(bytes, 28) == 32 && u32(bytes, 30) == 3)
        #expect([u32(bytes, 54), u32(bytes, 58), u32(bytes, 62), u32(bytes, 66)] == [Int](arrayLiteral: 0xFF0000, 0xFF00, 0xFF, 0xFF00_0000))
        #expect(Array(bytes[70..<74]) == Array("BGRs".utf8))
        // Bottom row first, straight alpha: (1, 2, 3, 255) as B, G, R, A.
        #expect(Array(bytes[122..<126]) == [3, 2, 1, 255])
        #expect(Array(bytes[122 + 16 + 12..<122 + 16 + 16]) == [30, 20, 10, 0])
        let decoded = try CodersManager.shared.decode(Data(bytes), options: .default).bitmap
        for y in 0..<2 {
            for x in 0..<4 where translucent.pixel(x: x, y: y).a > 0 {
                #expect(decoded.pixel(x: x, y: y) == translucent.pixel(x: x, y: y), "(\(x), \(y))")
            }
        }
        #expect(decoded.pixel(x: 3, y: 0).a == 0)
    }

    @Test func anICOHoldsOnePNGEntry() throws {
        let bytes = [UInt8](try CodersManager.shared.encode(Image(bitmap: translucent), as: .ico, options: .default))
        #expect(Array(bytes[0..<6]) == [0, 0, 1, 0, 1, 0])
        #expect(Array(bytes[6..<10]) == [4, 2, 0, 0] && u16(bytes, 10) == 1 && u16(bytes, 12) == 32)
        #expect(u32(bytes, 14) == bytes.count - 22 && u32(bytes, 18) == 22)
        #expect(Array(bytes[22..<26]) == [0x89, 0x50, 0x4E, 0x47])
        let decoded = try CodersManager.shared.decode(Data(bytes), options: .default)
        #expect(decoded.format == .ico)
        #expect(decoded.bitmap.pixels == translucent.pixels)
    }

    @Test func anICOIsAtMost256AndMaxPixelSizeShrinksIt() throws {
        let full = Image(bitmap: TestBitmaps.quadrants(width: 256, height: 256))
        let bytes = [UInt8](try CodersManager.shared.encode(full, as: .ico, options: .default))
        #expect(bytes[6] == 0 && bytes[7] == 0, "256 is written as 0")
        #expect(try CodersManager.shared.decode(Data(bytes), options: .default).pixelSize == PixelSize(width: 256, height: 256))
        let large = Image(bitmap: TestBitmaps.quadrants(width: 300, height: 150))
        let error = CodecFixtures.error { try CodersManager.shared.encode(large, as: .ico, options: .default) }
        #expect(error?.code == .encodingFailed && error?.message.contains("256×256") == true)
        var options = EncodeOptions.default
        options.maxPixelSize = PixelSize(width: 256, height: 256)
        let shrunk = try CodersManager.shared.decode(try CodersManager.shared.encode(large, as: .ico, options: options),
                                                     options: .default)
        #expect(shrunk.pixelSize == PixelSize(width: 256, height: 128))
        #expect(TestBitmaps.isUprightQuadrants(shrunk.bitmap))
    }
}
