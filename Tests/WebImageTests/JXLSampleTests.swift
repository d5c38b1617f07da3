import Foundation
import Testing
@testable import WebImageCodecs

/// What libjxl's encoder writes beyond cjxl's defaults: 16-bit samples reduced to 8 bits with
/// rounding, grey expanded to RGBA, orientations applied (and reported by the header).
@Suite("JPEG XL samples, grey and orientation")
struct JXLSampleTests {
    let coder = JXLCoder()

    @Test func sixteenBitSamplesRoundToEightBits() throws {
        // Every 16-bit value in steps of 37 (with 0 and 65535); v × 255 / 65535 rounded, not truncated.
        let values: [UInt16] = stride(from: 0, through: 65535, by: 37).map { UInt16($0) } + [65535]
        let width = 64, height = (values.count + width - 1) / width
        var samples = [UInt16](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            let v = values[i % values.count]
            samples[i * 3] = v
            samples[i * 3 + 1] = 65535 - v
            samples[i * 3 + 2] = v
        }
        let data = try JXLFixtures.encode([JXLFixtures.Samples(width: width, height: height, channels: 3, bits: 16,
                                                               values: samples)])
        let bitmap = try coder.decode(data, options: .default).bitmap
        var wrong = 0
        for i in 0..<(width * height) {
            for c in 0..<3 {
                let expected = (Double(samples[i * 3 + c]) * 255 / 65535).rounded()
                if Double(bitmap.pixels[i * 4 + c]) != expected { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    @Test(arguments: [1, 2])
    func greyIsExpandedToRGBA(_ channels: Int) throws {
        let width = 32, height = 8
        var values: [UInt16] = []
        for i in 0..<(width * height) {
            values.append(UInt16(i % 256))
            if channels == 2 { values.append(UInt16(255 - i % 200)) }
        }
        let data = try JXLFixtures.encode([JXLFixtures.Samples(width: width, height: height, channels: channels,
                                                               bits: 8, values: values)])
        let image = try coder.decode(data, options: .default)
        for i in 0..<(width * height) {
            let pixel = image.bitmap.pixel(x: i % width, y: i / width)
            let grey = UInt8(i % 256)
            #expect(pixel == RGBA(r: grey, g: grey, b: grey, a: channels == 2 ? UInt8(255 - i % 200) : 255), "pixel \(i)")
        }
        #expect(image.hasAlpha == (channels == 2))
    }

    @Test(arguments: 1...8)
    func orientationIsAppliedAndReported(_ orientation: Int) throws {
        let exif = try #require(EXIFOrientation(rawValue: orientation))
        let upright = TestBitmaps.quadrants(width: 64, height: 48)
        var settings = JXLFixtures.Settings()
        settings.orientation = UInt32(orientation)
        let data = try JXLFixtures.still(TestBitmaps.stored(upright, for: exif), settings)
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == PixelSize(width: 64, height: 48), "orientation \(orientation)")
        // Lossless: the upright picture exactly.
        #expect(image.bitmap == upright, "orientation \(orientation)")
        #expect(coder.imageInfo(for: data)?.pixelSize == PixelSize(width: 64, height: 48))
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 32)))
        #expect(thumbnail.pixelSize == PixelSize(width: 32, height: 24))
        #expect(TestBitmaps.isUprightQuadrants(thumbnail.bitmap))
    }
}
