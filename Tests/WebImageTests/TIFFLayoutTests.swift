import CTIFF
import Foundation
import Testing
@testable import WebImageCodecs

/// Layouts the reference tools do not write, made with libtiff at test time: each pixel checked
/// against what the TIFF specification says it means.
@Suite("TIFF layouts")
struct TIFFLayoutTests {
    let coder = TIFFCoder()

    func decode(_ page: TIFFFixtures.Page) throws -> Bitmap {
        try coder.decode(try TIFFFixtures.file([page]), options: .default).bitmap
    }

    /// 16-bit values, some whose 8-bit rounding differs from truncation (0x01FF / 257 = 1.99 → 2,
    /// where the high byte says 1).
    static let sixteen: [UInt16] = [0x00FF, 0x01FF, 0xFFFF, 0x0000, 0x8080, 0x017F]

    @Test func sixteenBitRGBIsRoundedNotTruncated() throws {
        let page = TIFFFixtures.Page(width: 2, height: 1, bits: 16, samples: Self.sixteen)
        let bitmap = try decode(page)
        #expect(bitmap.pixels == [1, 2, 255, 255, 0, 128, 1, 255])
    }

    @Test func sixteenBitPlanarTiles() throws {
        let samples = (0..<(20 * 18 * 3)).map { UInt16(($0 * 977) % 65536) }
        var page = TIFFFixtures.Page(width: 20, height: 18, bits: 16, samples: samples, planarSeparate: true, tile: 16)
        page.compression = COMPRESSION_ADOBE_DEFLATE
        let bitmap = try decode(page)
        for i in 0..<(20 * 18) {
            let want = (0..<3).map { UInt8((UInt32(samples[i * 3 + $0]) + 128) / 257) }
            #expect(Array(bitmap.pixels[i * 4..<i * 4 + 3]) == want, "pixel \(i)")
        }
    }

    @Test func associatedAlphaIsDividedOut() throws {
        // Stored premultiplied: (100, 50, 0) at alpha 128 is the straight colour (199, 100, 0).
        let eight = TIFFFixtures.Page(width: 2, height: 1, samplesPerPixel: 4,
                                      extraSamples: [UInt16(EXTRASAMPLE_ASSOCALPHA)],
                                      samples: [100, 50, 0, 128, 0, 0, 0, 0])
        #expect(try decode(eight).pixels == [199, 100, 0, 128, 0, 0, 0, 0])
        // At 16 bits the division keeps the precision: 0x3000 of alpha 0x8000 is 0.375 → 96.
        let deep = TIFFFixtures.Page(width: 1, height: 1, bits: 16, samplesPerPixel: 4,
                                     extraSamples: [UInt16(EXTRASAMPLE_ASSOCALPHA)],
                                     samples: [0x3000, 0x8000, 0x0000, 0x8000])
        #expect(try decode(deep).pixels == [96, 255, 0, 128])
        // RGB with a fourth sample and no ExtraSamples tag: libtiff names it an unspecified extra
        // sample, which is not alpha.
        let untagged = TIFFFixtures.Page(width: 1, height: 1, samplesPerPixel: 4, samples: [50, 50, 50, 100])
        #expect(try decode(untagged).pixels == [50, 50, 50, 255])
    }

    @Test func unassociatedAlphaIsKeptAsIs() throws {
        let page = TIFFFixtures.Page(width: 1, height: 1, samplesPerPixel: 4,
                                     extraSamples: [UInt16(EXTRASAMPLE_UNASSALPHA)], samples: [100, 50, 0, 128])
        #expect(try decode(page).pixels == [100, 50, 0, 128])
    }

    @Test func lowBitPaletteAndGray() throws {
        // 4-bit palette: entry i is (i * 4096, 65535 - i * 4096, 0x8080).
        let reds = (0..<16).map { UInt16($0 * 4096) }
        let palette = TIFFFixtures.Page(width: 5, height: 2, bits: 4, photometric: PHOTOMETRIC_PALETTE,
                                        samplesPerPixel: 1, samples: (0..<10).map { UInt16($0 + 3) },
                                        colormap: reds + reds.map { 65535 - $0 } + [UInt16](repeating: 0x8080, count: 16))
        let decoded = try decode(palette)
        for i in 0..<10 {
            let entry = UInt32(i + 3) * 4096
            #expect(decoded.pixel(x: i % 5, y: i / 5) == RGBA(r: UInt8((entry + 128) / 257), g: UInt8((65535 - entry + 128) / 257),
                                                               b: 128, a: 255), "pixel \(i)")
        }
        // 2-bit gray, white is zero: 0 → 255, 1 → 170, 2 → 85, 3 → 0.
        let gray = TIFFFixtures.Page(width: 7, height: 1, bits: 2, photometric: PHOTOMETRIC_MINISWHITE,
                                     samplesPerPixel: 1, samples: [0, 1, 2, 3, 3, 2, 1])
        let pixels = try decode(gray).pixels
        let grays: [UInt8] = stride(from: 0, to: pixels.count, by: 4).map { pixels[$0] }
        #expect(grays == [255, 170, 85, 0, 0, 85, 170])
    }

    @Test func cmykWithoutAProfileUsesTheNaiveFormula() throws {
        // R = (255 - C)(255 - K) / 255, rounded; alpha from the extra sample.
        let page = TIFFFixtures.Page(width: 2, height: 1, photometric: PHOTOMETRIC_SEPARATED, samplesPerPixel: 5,
                                     extraSamples: [UInt16(EXTRASAMPLE_UNASSALPHA)],
                                     samples: [0, 255, 128, 0, 200, 64, 0, 0, 128, 255])
        let bitmap = try decode(page)
        #expect(bitmap.pixel(x: 0, y: 0) == RGBA(r: 255, g: 0, b: 127, a: 200))
        #expect(bitmap.pixel(x: 1, y: 0) == RGBA(r: 95, g: 127, b: 127, a: 255))
    }

    @Test func stripsOfSeveralRowsAndTheLastOneShort() throws {
        let samples = (0..<(9 * 7 * 3)).map { UInt16($0 % 251) }
        let page = TIFFFixtures.Page(width: 9, height: 7, samples: samples, rowsPerStrip: 3)
        var want: [UInt8] = []
        for i in 0..<(9 * 7) {
            want += [UInt8(samples[i * 3]), UInt8(samples[i * 3 + 1]), UInt8(samples[i * 3 + 2]), 255]
        }
        #expect(try decode(page).pixels == want)
    }

    @Test func yCbCrWithoutJPEGGoesThroughLibtiffsRGBAInterface() throws {
        // Uncompressed YCbCr without subsampling: (128, 128, 128) is gray 128; (76, 85, 255) is
        // BT.601's red (254, 0, 0).
        var page = TIFFFixtures.Page(width: 2, height: 1, photometric: PHOTOMETRIC_YCBCR,
                                     samples: [128, 128, 128, 76, 85, 255])
        page.compression = COMPRESSION_NONE
        page.yCbCrSubsampling = (1, 1)
        let bitmap = try decode(page)
        #expect(ColorFixtures.near(bitmap.pixel(x: 0, y: 0), [128, 128, 128]), "\(bitmap.pixel(x: 0, y: 0))")
        #expect(ColorFixtures.near(bitmap.pixel(x: 1, y: 0), [254, 0, 0]), "\(bitmap.pixel(x: 1, y: 0))")
        #expect(bitmap.pixel(x: 1, y: 0).a == 255)
    }
}
