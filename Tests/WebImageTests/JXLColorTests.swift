import Foundation
import Testing
@testable import WebImageCodecs

/// Colour in JPEG XL: sRGB files take the fast path, XYB (lossy) files are rendered into sRGB by
/// libjxl, lossless files in another space are converted by lcms2 like JPEG and PNG; the original
/// profile stays on the image, and conversion can be turned off.
@Suite("JPEG XL colour")
struct JXLColorTests {
    let coder = JXLCoder()
    let patch = ColorFixtures.patch

    /// lcms2's sRGB value of the patch's values in Display P3.
    var reference: [UInt8] {
        get throws { try ColorFixtures.reference([patch.r, patch.g, patch.b], icc: ColorFixtures.displayP3) }
    }

    @Test func losslessWithAnEmbeddedP3ProfileIsConvertedByLCMS2() throws {
        var settings = JXLFixtures.Settings()
        settings.icc = ColorFixtures.displayP3
        let data = try JXLFixtures.still(ColorFixtures.solid(patch), settings)
        let image = try coder.decode(data, options: .default)
        let pixel = image.bitmap.pixel(x: 8, y: 8), expected = try reference
        #expect(ColorFixtures.near(pixel, expected, tolerance: 2), "\(pixel) vs \(expected)")
        #expect(image.colorProfile?.description == "Test Display P3")
        #expect(image.colorProfile?.iccData == ColorFixtures.displayP3)
    }

    @Test func losslessWithTheP3EncodingIsConverted() throws {
        var settings = JXLFixtures.Settings()
        settings.encoding = JXLFixtures.displayP3Encoding
        let data = try JXLFixtures.still(ColorFixtures.solid(patch), settings)
        let image = try coder.decode(data, options: .default)
        let pixel = image.bitmap.pixel(x: 8, y: 8), expected = try reference
        #expect(ColorFixtures.near(pixel, expected, tolerance: 2), "\(pixel) vs \(expected)")
        #expect(image.colorProfile?.isReadable == true)
        #expect(image.colorProfile != .sRGB)
    }

    @Test(arguments: [false, true])
    func lossyP3IsRenderedIntoSRGBByLibjxl(_ embedded: Bool) throws {
        var settings = JXLFixtures.Settings()
        settings.lossless = false
        settings.distance = 0.1
        if embedded { settings.icc = ColorFixtures.displayP3 } else { settings.encoding = JXLFixtures.displayP3Encoding }
        let data = try JXLFixtures.still(ColorFixtures.solid(patch), settings)
        let image = try coder.decode(data, options: .default)
        let pixel = image.bitmap.pixel(x: 8, y: 8), expected = try reference
        // Lossy at distance 0.1: within 2 of lcms2's conversion of the exact colour.
        #expect(ColorFixtures.near(pixel, expected, tolerance: 2), "\(pixel) vs \(expected)")
        #expect(image.colorProfile?.isReadable == true)
        #expect(image.colorProfile != .sRGB)
    }

    @Test func conversionOffKeepsTheFilesColours() throws {
        var settings = JXLFixtures.Settings()
        settings.icc = ColorFixtures.displayP3
        let lossless = try JXLFixtures.still(ColorFixtures.solid(patch), settings)
        settings.icc = nil
        settings.encoding = JXLFixtures.displayP3Encoding
        settings.lossless = false
        settings.distance = 0.1
        let lossy = try JXLFixtures.still(ColorFixtures.solid(patch), settings)
        let off = DecodeOptions(convertsToSRGB: false)
        for data in [lossless, lossy] {
            let image = try coder.decode(data, options: off)
            #expect(image.bitmap.pixel(x: 8, y: 8).isClose(to: patch, tolerance: 2), "\(image.bitmap.pixel(x: 8, y: 8))")
            #expect(image.colorProfile?.isReadable == true)
            #expect(image.colorProfile != .sRGB)
        }
    }

    @Test func sRGBFilesAreTaggedSRGBAndUntouched() throws {
        let data = try JXLFixtures.still(ColorFixtures.solid(patch))
        let image = try coder.decode(data, options: .default)
        #expect(image.bitmap == ColorFixtures.solid(patch))
        #expect(image.colorProfile == .sRGB)
    }
}
