import Foundation
import Testing
@testable import WebImageCodecs

/// PNGs without a profile: `cHRM` and `gAMA` build one; a plain 1/2.2 `gAMA` is taken as sRGB.
@Suite("Colour: PNG cHRM and gAMA")
struct ColorPNGChunkTests {
    func gama(_ value: Double) -> (UInt32, [UInt8]) {
        (PNGChunks.fourCC("gAMA"), PNGWriter.bigEndian(UInt32((value * 100_000).rounded())))
    }

    func chrm(white: (Double, Double), red: (Double, Double), green: (Double, Double),
              blue: (Double, Double)) -> (UInt32, [UInt8]) {
        let values = [white.0, white.1, red.0, red.1, green.0, green.1, blue.0, blue.1]
        return (PNGChunks.fourCC("cHRM"), values.flatMap { PNGWriter.bigEndian(UInt32(($0 * 100_000).rounded())) })
    }

    @Test func p3ChromaticitiesConvertLikeTheP3Profile() throws {
        let p3 = chrm(white: (0.3127, 0.3290), red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))
        let data = ColorFixtures.taggedPNG(icc: nil, extraChunks: [p3])
        let image = try PNGCoder().decode(data, options: .default)
        let patch = ColorFixtures.patch
        let want = try ColorFixtures.reference([patch.r, patch.g, patch.b], icc: ColorFixtures.displayP3)
        #expect(ColorFixtures.near(image.bitmap.pixel(x: 8, y: 8), want))
        #expect(image.colorProfile?.description == "PNG cHRM/gAMA")
    }

    @Test func linearGammaBrightensMidtones() throws {
        // Linear-light pixels (gAMA 1.0): a mid value 128 becomes sRGB's encoding of 0.5, 188.
        let data = ColorFixtures.taggedPNG(RGBA(r: 128, g: 128, b: 128, a: 255), icc: nil, extraChunks: [gama(1.0)])
        let pixel = try PNGCoder().decode(data, options: .default).bitmap.pixel(x: 0, y: 0)
        #expect(abs(Int(pixel.r) - 188) <= 1 && pixel.r == pixel.g && pixel.g == pixel.b)
    }

    @Test func standardGammaAloneIsSRGB() throws {
        let data = ColorFixtures.taggedPNG(icc: nil, extraChunks: [gama(1 / 2.2)])
        let image = try PNGCoder().decode(data, options: .default)
        #expect(image.bitmap == ColorFixtures.solid())
        #expect(image.colorProfile == nil)
    }

    @Test func iccpWinsOverTheOtherChunks() throws {
        let data = ColorFixtures.taggedPNG(icc: ColorFixtures.sRGB, extraChunks: [gama(1.0)])
        let image = try PNGCoder().decode(data, options: .default)
        #expect(image.bitmap == ColorFixtures.solid())
    }
}
