import CLCMS2
import CTIFF
import Foundation
import Testing
@testable import WebImageCodecs

/// A TIFF's ICC profile (TIFFTAG_ICCPROFILE) converts its pixels to sRGB through the library's
/// colour management, as every other format's does.
@Suite("TIFF colour")
struct TIFFColorTests {
    let coder = TIFFCoder()
    let patch = ColorFixtures.patch

    func tagged(_ icc: Data?) throws -> Data {
        var page = TIFFFixtures.Page.solid(16, 16, patch)
        page.icc = icc
        return try TIFFFixtures.file([page])
    }

    @Test func displayP3BecomesTheSRGBValuesOfLcms2() throws {
        let image = try coder.decode(try tagged(ColorFixtures.displayP3), options: .default)
        let want = try ColorFixtures.reference([patch.r, patch.g, patch.b], icc: ColorFixtures.displayP3)
        let got = image.bitmap.pixel(x: 8, y: 8)
        #expect(ColorFixtures.near(got, want), "decoded \(got), lcms2 gives \(want)")
        #expect(!ColorFixtures.near(got, [patch.r, patch.g, patch.b]), "the patch was not converted")
        #expect(image.colorProfile?.description == "Test Display P3")
        #expect(image.colorProfile?.colorSpace == .rgb)
    }

    @Test func conversionOffKeepsThePixelsAndTheProfile() throws {
        let image = try coder.decode(try tagged(ColorFixtures.displayP3), options: DecodeOptions(convertsToSRGB: false))
        #expect(image.bitmap.pixel(x: 8, y: 8) == patch)
        #expect(image.colorProfile?.description == "Test Display P3")
    }

    @Test func aProfileLcms2RejectsLeavesThePixelsAlone() throws {
        let garbage = Data([0, 0, 1, 0] + [UInt8](repeating: 0x5A, count: 252))
        let image = try coder.decode(try tagged(garbage), options: .default)
        #expect(image.bitmap.pixel(x: 8, y: 8) == patch)
        #expect(image.colorProfile?.iccData == garbage)
        #expect(image.colorProfile?.isReadable == false)
    }

    @Test func untaggedFilesHaveNoProfile() throws {
        #expect(try coder.decode(try tagged(nil), options: .default).colorProfile == nil)
    }

    @Test func cmykConvertsThroughItsProfile() throws {
        let ink: [UInt8] = [20, 180, 60, 30]
        var page = TIFFFixtures.Page(width: 4, height: 4, photometric: PHOTOMETRIC_SEPARATED, samplesPerPixel: 4,
                                     samples: Array([[UInt16]](repeating: ink.map(UInt16.init), count: 16).joined()))
        page.icc = ColorFixtures.cmyk
        let data = try TIFFFixtures.file([page])
        let want = try ColorFixtures.reference(ink, icc: ColorFixtures.cmyk, format: CLCMS2_TYPE_CMYK_8)
        let got = try coder.decode(data, options: .default).bitmap.pixel(x: 1, y: 1)
        #expect(ColorFixtures.near(got, want), "decoded \(got), lcms2 gives \(want)")
        #expect(got.a == 255)
        // Even with conversion off: an RGBA bitmap cannot hold CMYK.
        let off = try coder.decode(data, options: DecodeOptions(convertsToSRGB: false)).bitmap.pixel(x: 1, y: 1)
        #expect(ColorFixtures.near(off, want))
    }

    @Test func thumbnailsAreConvertedToo() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 4, height: 4))
        let image = try coder.decode(try tagged(ColorFixtures.displayP3), options: options)
        let want = try ColorFixtures.reference([patch.r, patch.g, patch.b], icc: ColorFixtures.displayP3)
        #expect(ColorFixtures.near(image.bitmap.pixel(x: 1, y: 1), want))
    }
}
