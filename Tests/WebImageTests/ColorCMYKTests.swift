import CLCMS2
import CTurboJPEG
import Foundation
import Testing
@testable import WebImageCodecs

/// CMYK JPEGs: Adobe's inverted inks without a profile match Pillow's conversion; with an
/// embedded CMYK profile they match lcms2's.
@Suite("Colour: CMYK JPEG")
struct ColorCMYKTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/cmyk-adobe.jpg")

    @Test func adobeCMYKWithoutProfileMatchesPillow() throws {
        let image = try JPEGCoder().decode(try Data(contentsOf: Self.fixture), options: .default)
        let expected: [(x: Int, y: Int, rgb: [UInt8])] = [
            (8, 8, [255, 0, 0]), (24, 8, [0, 191, 191]), (8, 24, [207, 180, 152]), (24, 24, [55, 55, 55]),
        ]
        for patch in expected {
            let got = image.bitmap.pixel(x: patch.x, y: patch.y)
            #expect(ColorFixtures.near(got, patch.rgb), "at \(patch.x),\(patch.y): \(got), Pillow gives \(patch.rgb)")
            #expect(got.a == 255)
        }
        #expect(image.colorProfile == nil)
    }

    /// Inks (C, M, Y, K; 255 = full) of one patch, the file stores them Adobe-inverted.
    let inks: [UInt8] = [20, 200, 160, 30]

    func cmykJPEG(icc: Data?) throws -> Data {
        let stored = inks.map { 255 - $0 }
        let pixels = (0..<16 * 16).flatMap { _ in stored }
        let plain = try JPEGFixtures.compress(pixels, width: 16, height: 16, pixelFormat: TJPF_CMYK,
                                              subsampling: TJSAMP_444, quality: 100)
        return icc.map { ColorFixtures.jpeg(plain, icc: $0) } ?? plain
    }

    @Test func embeddedCMYKProfileMatchesLCMS2() throws {
        let image = try JPEGCoder().decode(try cmykJPEG(icc: ColorFixtures.cmyk), options: .default)
        let want = try ColorFixtures.reference(inks, icc: ColorFixtures.cmyk, format: CLCMS2_TYPE_CMYK_8)
        let got = image.bitmap.pixel(x: 8, y: 8)
        #expect(ColorFixtures.near(got, want), "decoded \(got), lcms2 gives \(want)")
        #expect(got.a == 255)
        #expect(image.colorProfile?.colorSpace == .cmyk)
        #expect(image.colorProfile?.description == "Test CMYK")
    }

    @Test func profileChangesTheResult() throws {
        let plain = try JPEGCoder().decode(try cmykJPEG(icc: nil), options: .default).bitmap.pixel(x: 8, y: 8)
        let managed = try JPEGCoder().decode(try cmykJPEG(icc: ColorFixtures.cmyk), options: .default)
            .bitmap.pixel(x: 8, y: 8)
        // The test profile is the naive formula darkened by 10%.
        #expect(abs(Int(managed.r) - Int(plain.r) * 9 / 10) <= 3)
        #expect(abs(Int(managed.g) - Int(plain.g) * 9 / 10) <= 3)
    }

    @Test func cmykIsConvertedEvenWithConversionOff() throws {
        let on = try JPEGCoder().decode(try cmykJPEG(icc: ColorFixtures.cmyk), options: .default)
        let off = try JPEGCoder().decode(try cmykJPEG(icc: ColorFixtures.cmyk), options: DecodeOptions(convertsToSRGB: false))
        #expect(on.bitmap == off.bitmap)
    }

    @Test func plainInksWithoutAdobeMarkerAreInvertedFirst() {
        var adobe: [UInt8] = [255 - 20, 255 - 200, 255 - 160, 255 - 30]
        var plain: [UInt8] = [20, 200, 160, 30]
        adobe.withUnsafeMutableBufferPointer { JPEGCMYK.convertToRGBA($0, inverted: true) }
        plain.withUnsafeMutableBufferPointer { JPEGCMYK.convertToRGBA($0, inverted: false) }
        #expect(adobe == plain)
    }
}
