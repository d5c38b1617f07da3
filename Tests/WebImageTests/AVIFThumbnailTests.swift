import Foundation
import Testing
@testable import WebImageCodecs

/// AVIF thumbnails and byte budgets: decoded at full size (AV1 has no reduced decode), then
/// resampled with the library's resampler.
@Suite("AVIF thumbnails")
struct AVIFThumbnailTests {
    let coder = AVIFCoder()

    @Test func thumbnailBoxSizes() throws {
        let data = try CodecFixtures.data("avif/grid-2x2.avif")
        let fit = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 40))
        #expect(try coder.decode(data, options: fit).pixelSize == PixelSize(width: 40, height: 40))
        let stretch = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 40), preserveAspectRatio: false)
        #expect(try coder.decode(data, options: stretch).pixelSize == PixelSize(width: 50, height: 40))
        let larger = DecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 400))
        #expect(try coder.decode(data, options: larger).pixelSize == PixelSize(width: 128, height: 128))
    }

    @Test func thumbnailIsTheResampledFullImage() throws {
        let path = "avif/alpha.avif"
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 32))
        let image = try coder.decode(try CodecFixtures.data(path), options: options)
        #expect(image.pixelSize == PixelSize(width: 32, height: 24))
        #expect(image.isThumbnail)
        let expected = Resampler.resize(try CodecFixtures.reference(path), to: image.pixelSize)
        #expect(CodecFixtures.maxDifference(image.bitmap, expected) <= 2)
    }

    @Test func byteBudgetIsMet() throws {
        let options = DecodeOptions(scaleDownLimitBytes: 4 * 1024)
        let image = try coder.decode(try CodecFixtures.data("avif/grid-2x2.avif"), options: options)
        #expect(image.memoryCost <= 4 * 1024)
        #expect(image.pixelSize == PixelSize(width: 32, height: 32))
    }
}
