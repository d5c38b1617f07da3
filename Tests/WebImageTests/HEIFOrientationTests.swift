import Foundation
import Testing
@testable import WebImageCodecs

/// libheif applies `irot` and `imir` while decoding (checked here against heif-convert and the
/// picture's known quadrants), so sizes are reported as shown.
@Suite("HEIF orientation")
struct HEIFOrientationTests {
    let coder = HEIFCoder()

    @Test(arguments: ["orientation-6", "orientation-7"])
    func transformationsAreApplied(_ name: String) throws {
        let path = "heif/\(name).heic"
        let data = try CodecFixtures.data(path)
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == PixelSize(width: 48, height: 64))
        #expect(coder.imageInfo(for: data)?.pixelSize == PixelSize(width: 48, height: 64))
        #expect(CodecFixtures.maxDifference(image.bitmap, try CodecFixtures.reference(path)) == 0)
    }

    @Test func aQuarterTurnClockwiseMovesTheRedQuadrantTopRight() throws {
        // The stored picture has red top-left, green top-right, blue bottom-left, yellow
        // bottom-right; orientation 6 turns it a quarter clockwise: blue, red / yellow, green.
        let image = try coder.decode(try CodecFixtures.data("heif/orientation-6.heic"), options: .default)
        let b = image.bitmap
        #expect(b.pixel(x: 6, y: 8).b > 150)          // top-left: blue
        #expect(b.pixel(x: 41, y: 8).r > 150 && b.pixel(x: 41, y: 8).g < 120)   // top-right: red
        #expect(b.pixel(x: 6, y: 56).r > 150 && b.pixel(x: 6, y: 56).g > 150)  // bottom-left: yellow
        #expect(b.pixel(x: 41, y: 56).g > 150 && b.pixel(x: 41, y: 56).r < 120) // bottom-right: green
    }

    @Test func thumbnailBoxAppliesToTheShownSize() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 24))
        let image = try coder.decode(try CodecFixtures.data("heif/orientation-7.heic"), options: options)
        #expect(image.pixelSize == PixelSize(width: 18, height: 24))
    }
}
