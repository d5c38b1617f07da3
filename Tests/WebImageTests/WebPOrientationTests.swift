import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("WebP coder: EXIF orientation and scaled decoding")
struct WebPOrientationTests {
    let coder = WebPCoder()
    let upright = TestBitmaps.quadrants(width: 64, height: 48)

    func oriented(_ orientation: EXIFOrientation, exifPrefix: Bool = false) throws -> Data {
        let stored = TestBitmaps.stored(upright, for: orientation)
        let webp = try WebPFixtures.encode(stored, lossless: true)
        let exif = (exifPrefix ? Array("Exif\0\0".utf8) : []) + TestBitmaps.exifTIFF(orientation: orientation)
        return try #require(WebPFixtures.addingEXIF(exif, to: webp))
    }

    @Test(arguments: EXIFOrientation.allCases)
    func orientationIsApplied(_ orientation: EXIFOrientation) throws {
        let data = try oriented(orientation)
        let stored = TestBitmaps.stored(upright, for: orientation)
        #expect(stored.size == (orientation.swapsDimensions ? PixelSize(width: 48, height: 64) : upright.size))
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == upright.size)
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap))
    }

    @Test(arguments: [EXIFOrientation.right, .leftMirrored, .down])
    func exifWithPrefixIsRead(_ orientation: EXIFOrientation) throws {
        let image = try coder.decode(try oriented(orientation, exifPrefix: true), options: .default)
        #expect(image.pixelSize == upright.size)
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap))
    }

    @Test(arguments: EXIFOrientation.allCases)
    func thumbnailBoxAppliesToTheDisplayedSize(_ orientation: EXIFOrientation) throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 32))
        let image = try coder.decode(try oriented(orientation), options: options)
        #expect(image.pixelSize == PixelSize(width: 32, height: 24))
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap))
    }

    @Test func thumbnailBoxSizes() throws {
        let data = try WebPFixtures.encode(TestBitmaps.gradient(width: 200, height: 100))
        let fit = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50))
        #expect(try coder.decode(data, options: fit).pixelSize == PixelSize(width: 50, height: 25))
        let stretch = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50), preserveAspectRatio: false)
        #expect(try coder.decode(data, options: stretch).pixelSize == PixelSize(width: 50, height: 50))
        let larger = DecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 400))
        #expect(try coder.decode(data, options: larger).pixelSize == PixelSize(width: 200, height: 100))
    }

    @Test func scaledDecodeKeepsTheContent() throws {
        let data = try WebPFixtures.encode(TestBitmaps.quadrants(width: 256, height: 192), lossless: true)
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64)))
        #expect(image.pixelSize == PixelSize(width: 64, height: 48))
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap, tolerance: 2))
    }

    @Test func byteBudgetSizes() throws {
        let size = PixelSize(width: 200, height: 100)
        let data = try WebPFixtures.encode(TestBitmaps.gradient(width: 200, height: 100))
        for limit in [1, 4_000, 20_000, 79_999] {
            let image = try coder.decode(data, options: DecodeOptions(scaleDownLimitBytes: limit))
            #expect(image.pixelSize == ImageSizing.scaledSize(size, limitBytes: limit))
            #expect(image.memoryCost <= max(limit, 4))
        }
        let roomy = try coder.decode(data, options: DecodeOptions(scaleDownLimitBytes: 80_000))
        #expect(roomy.pixelSize == size)
        // The byte budget wins over a thumbnail box.
        let both = DecodeOptions(thumbnailPixelSize: PixelSize(width: 150, height: 150), scaleDownLimitBytes: 4_000)
        #expect(try coder.decode(data, options: both).pixelSize == ImageSizing.scaledSize(size, limitBytes: 4_000))
    }
}
