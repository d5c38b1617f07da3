import Foundation
import Testing
@testable import WebImageCodecs

/// Bitmaps gdk-pixbuf decodes wrongly, written byte by byte at test time and decoded by the
/// library itself (``DIBPixels``): bit fields beside a palette, ICO entries with a BITMAPV5
/// header and an embedded profile, a PNG entry whose directory claims a depth icons do not have.
@Suite("DIB layouts")
struct DIBLayoutTests {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }

    /// A BITMAPINFOHEADER (40 bytes).
    static func infoHeader(width: Int, height: Int, bitCount: Int, compression: UInt32, colorsUsed: UInt32 = 0) -> [UInt8] {
        var header: [UInt8] = le32(40)
        header += le32(UInt32(bitPattern: Int32(width)))
        header += le32(UInt32(bitPattern: Int32(height)))
        header += le16(1)
        header += le16(bitCount)
        header += le32(compression)
        header += le32(0)
        header += le32(2835)
        header += le32(2835)
        header += le32(colorsUsed)
        header += le32(0)
        return header
    }

    /// 5-6-5 pixels (red, green, blue, white), 2×2, bottom-up.
    static let rgb565: [UInt16] = [0xF800, 0x07E0, 0x001F, 0xFFFF]

    /// A 2×2 16-bit BI_BITFIELDS 5-6-5 BMP that also stores a 4-colour palette of grays.
    static func bitFieldsWithPalette() -> Data {
        let masks: [UInt8] = le32(0xF800) + le32(0x07E0) + le32(0x001F)
        var palette: [UInt8] = []
        for i in 0..<4 {
            let gray = UInt8(i * 60)
            palette += [gray, gray, gray, 0]
        }
        // Rows bottom-up, each 2 pixels × 2 bytes = 4 bytes (already a multiple of 4).
        let rows = [rgb565[2], rgb565[3], rgb565[0], rgb565[1]].flatMap { le16(Int($0)) }
        let offset = 14 + 40 + masks.count + palette.count
        var file: [UInt8] = Array("BM".utf8)
        file += le32(UInt32(offset + rows.count))
        file += le32(0)
        file += le32(UInt32(offset))
        file += infoHeader(width: 2, height: 2, bitCount: 16, compression: 3, colorsUsed: 4)
        file += masks
        file += palette
        file += rows
        return Data(file)
    }

    @Test func bitFieldsDecideAndThePaletteIsIgnored() throws {
        let image = try BMPCoder().decode(Self.bitFieldsWithPalette(), options: .default)
        #expect(image.pixelSize == PixelSize(width: 2, height: 2))
        #expect(image.bitmap.pixel(x: 0, y: 0) == RGBA(r: 255, g: 0, b: 0))
        #expect(image.bitmap.pixel(x: 1, y: 0) == RGBA(r: 0, g: 255, b: 0))
        #expect(image.bitmap.pixel(x: 0, y: 1) == RGBA(r: 0, g: 0, b: 255))
        #expect(image.bitmap.pixel(x: 1, y: 1) == .white)
    }

    @Test func maskedFieldsScaleToEightBits() {
        #expect(DIBPixels.channel(0xF800, 0xF800) == 255)
        #expect(DIBPixels.channel(0x0400, 0x07E0) == 130) // 32 of 63
        #expect(DIBPixels.channel(0x1234, 0) == 0)
        #expect(DIBPixels.channel(0xFFFF_FFFF, 0xFFFF_FFFF) == 255)
    }

    /// An ICO of one entry, `image` bytes at offset 22; the directory says `bitCount`.
    static func ico(_ image: [UInt8], width: Int, height: Int, bitCount: Int) -> Data {
        var directory: [UInt8] = [UInt8(width & 0xFF), UInt8(height & 0xFF), 0, 0]
        directory += le16(1)
        directory += le16(bitCount)
        directory += le32(UInt32(image.count))
        directory += le32(22)
        return Data([0, 0, 1, 0, 1, 0] + directory + image)
    }

    /// A 3×2 24-bit entry with a BITMAPV5 header whose embedded profile (junk bytes) follows the
    /// pixels and mask (the mask makes the top-right pixel transparent), or, `withMask` false,
    /// follows the pixels where the mask would be.
    static func versionFiveEntry(withMask: Bool = true) -> [UInt8] {
        let width = 3, height = 2
        let colorRow = 12 // 3 × 3 bytes padded to 4
        let maskRow = 4
        // Bottom-up: bottom row blue, green, red; top row white, black, (masked) red.
        let bottom: [UInt8] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0]
        let top: [UInt8] = [255, 255, 255, 0, 0, 0, 0, 0, 255, 0, 0, 0]
        let maskBottom: [UInt8] = [0, 0, 0, 0], maskTop: [UInt8] = [0b0010_0000, 0, 0, 0]
        let profile = [UInt8](repeating: 0xAB, count: 64)
        let profileOffset = 124 + colorRow * height + (withMask ? maskRow * height : 0)
        var header: [UInt8] = le32(124)
        header += le32(UInt32(width))
        header += le32(UInt32(height * 2))
        header += le16(1)
        header += le16(24)
        header += le32(0)
        header += le32(UInt32(colorRow * height))
        header += le32(2835)
        header += le32(2835)
        header += le32(0)
        header += le32(0)
        for mask: UInt32 in [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0] { header += le32(mask) }
        header += Array("MBED".utf8.reversed()) // bV5CSType: PROFILE_EMBEDDED
        header += [UInt8](repeating: 0, count: 36 + 12) // endpoints, gammas
        header += le32(4) // intent
        header += le32(UInt32(profileOffset))
        header += le32(UInt32(profile.count))
        header += le32(0)
        precondition(header.count == 124)
        return header + bottom + top + (withMask ? maskBottom + maskTop : []) + profile
    }

    @Test func versionFiveEntryWithAProfileDecodes() throws {
        let image = try ICOCoder().decode(Self.ico(Self.versionFiveEntry(), width: 3, height: 2, bitCount: 24), options: .default)
        #expect(image.pixelSize == PixelSize(width: 3, height: 2))
        let b = image.bitmap
        #expect(b.pixel(x: 0, y: 0) == .white)
        #expect(b.pixel(x: 1, y: 0) == .black)
        #expect(b.pixel(x: 2, y: 0).a == 0)
        #expect(b.pixel(x: 0, y: 1) == RGBA(r: 0, g: 0, b: 255))
        #expect(b.pixel(x: 1, y: 1) == RGBA(r: 0, g: 255, b: 0))
        #expect(b.pixel(x: 2, y: 1) == RGBA(r: 255, g: 0, b: 0))
    }

    @Test func aProfileWhereTheMaskWouldBeLeavesTheEntryOpaque() throws {
        let data = Self.ico(Self.versionFiveEntry(withMask: false), width: 3, height: 2, bitCount: 24)
        let image = try ICOCoder().decode(data, options: .default)
        #expect(image.bitmap.pixel(x: 2, y: 0) == RGBA(r: 255, g: 0, b: 0))
        #expect(image.bitmap.pixel(x: 0, y: 0) == .white)
    }

    @Test func aPNGEntryIgnoresTheDirectorysDepth() throws {
        let png = [UInt8](PNGFixtures.png(width: 2, height: 1, rows: [[10, 20, 30, 255, 40, 50, 60, 128]]))
        let data = Self.ico(png, width: 2, height: 1, bitCount: 500)
        #expect(ImageFormat.detect(data) == .ico)
        let image = try ICOCoder().decode(data, options: .default)
        #expect(image.bitmap.pixel(x: 1, y: 0) == RGBA(r: 40, g: 50, b: 60, a: 128))
    }

    /// Cut short anywhere, the library's own bitmap decode fails cleanly.
    @Test func truncatedBitmapsFailCleanly() throws {
        let bmp = Self.bitFieldsWithPalette()
        for cut in stride(from: 14, to: bmp.count, by: 3) {
            #expect(throws: WebImageError.self) { try BMPCoder().decode(bmp.prefix(cut), options: .default) }
        }
        let ico = Self.ico(Self.versionFiveEntry(), width: 3, height: 2, bitCount: 24)
        for cut in stride(from: 22 + 124, to: 22 + 124 + 24 + 8, by: 5) {
            #expect(throws: WebImageError.self) { try ICOCoder().decode(ico.prefix(cut), options: .default) }
        }
    }
}
