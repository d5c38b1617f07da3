import Foundation
import Testing
@testable import WebImageCodecs

/// Untagged and sRGB-tagged images are left exactly as decoded: no conversion runs.
@Suite("Colour: untagged and sRGB")
struct ColorFastPathTests {
    let patch = ColorFixtures.patch

    @Test func untaggedPNGIsUntouched() throws {
        let image = try PNGCoder().decode(ColorFixtures.taggedPNG(icc: nil), options: .default)
        #expect(image.bitmap == ColorFixtures.solid())
        #expect(image.colorProfile == nil)
    }

    @Test func sRGBTaggedPNGIsUntouched() throws {
        let image = try PNGCoder().decode(ColorFixtures.taggedPNG(icc: ColorFixtures.sRGB), options: .default)
        #expect(image.bitmap == ColorFixtures.solid())
        #expect(image.colorProfile?.iccData == ColorFixtures.sRGB)
    }

    @Test func sRGBTaggedJPEGDecodesAsTheUntaggedOne() throws {
        let untagged = try JPEGCoder().decode(try ColorFixtures.taggedJPEG(icc: nil), options: .default)
        let tagged = try JPEGCoder().decode(try ColorFixtures.taggedJPEG(icc: ColorFixtures.sRGB), options: .default)
        #expect(tagged.bitmap == untagged.bitmap)
        #expect(untagged.colorProfile == nil)
        #expect(tagged.colorProfile != nil)
    }

    @Test func sRGBProfilesNeedNoConversion() {
        let conversion = ColorConversionCache.shared.conversion(for: ColorFixtures.sRGB, source: .rgb).conversion
        #expect(conversion == nil)
        let builtIn = ColorConversionCache.shared.conversion(for: ColorProfile.sRGB.iccData, source: .rgb).conversion
        #expect(builtIn == nil)
    }

    @Test func pngSRGBChunkIsUntouchedAndNamedSRGB() throws {
        let srgbChunk: (UInt32, [UInt8]) = (PNGChunks.fourCC("sRGB"), [0])
        let image = try PNGCoder().decode(ColorFixtures.taggedPNG(icc: nil, extraChunks: [srgbChunk]), options: .default)
        #expect(image.bitmap == ColorFixtures.solid())
        #expect(image.colorProfile == ColorProfile.sRGB)
    }
}
