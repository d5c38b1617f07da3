import Foundation
import Testing
@testable import WebImageCodecs

/// The embedded thumbnail item is decoded instead of the primary image when it is at least the
/// requested size. `marked-thumbnail.heic` pairs the quadrants picture with a thumbnail of one
/// flat magenta, so the pixels tell which item was decoded.
@Suite("HEIF embedded thumbnails")
struct HEIFThumbnailTests {
    let coder = HEIFCoder()
    let magenta = RGBA(r: 200, g: 30, b: 200)

    @Test func thumbnailItemServesSmallRequests() throws {
        let data = try CodecFixtures.data("heif/marked-thumbnail.heic")
        for box in [PixelSize(width: 64, height: 48), PixelSize(width: 40, height: 40), PixelSize(width: 8, height: 8)] {
            let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
            #expect(image.bitmap.pixel(x: image.width / 4, y: image.height / 4).isClose(to: magenta, tolerance: 12), "\(box)")
            #expect(image.pixelSize.width <= box.width && image.pixelSize.height <= box.height)
        }
    }

    @Test func primaryServesRequestsLargerThanTheThumbnail() throws {
        let data = try CodecFixtures.data("heif/marked-thumbnail.heic")
        let full = try coder.decode(data, options: .default)
        #expect(full.pixelSize == PixelSize(width: 128, height: 96))
        #expect(CodecFixtures.maxDifference(full.bitmap, try CodecFixtures.reference("heif/marked-thumbnail.heic")) == 0)
        let larger = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(larger.pixelSize == PixelSize(width: 100, height: 75))
        #expect(!larger.bitmap.pixel(x: 25, y: 18).isClose(to: magenta, tolerance: 40))
        let budget = try coder.decode(data, options: DecodeOptions(scaleDownLimitBytes: 128 * 96 * 4 / 2))
        #expect(!budget.bitmap.pixel(x: 10, y: 10).isClose(to: magenta, tolerance: 40))
    }

    @Test func heifEncThumbnailIsUsedAndResized() throws {
        // heif-enc -t 32 stored a 32x24 thumbnail of the 128x96 picture.
        let data = try CodecFixtures.data("heif/thumbnail.heic")
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16)))
        #expect(image.pixelSize == PixelSize(width: 16, height: 12))
        let reference = Resampler.resize(try CodecFixtures.reference("heif/thumbnail.heic"), to: image.pixelSize)
        #expect(CodecFixtures.meanDifference(image.bitmap, reference) < 6)
    }

    @Test func chooserPicksOnlyCoveringThumbnails() throws {
        let data = try CodecFixtures.data("heif/thumbnail.heic")
        let small = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 32)))
        #expect(small.pixelSize == PixelSize(width: 32, height: 24))
        let big = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 33, height: 33)))
        #expect(big.pixelSize == PixelSize(width: 33, height: 25))
    }
}
