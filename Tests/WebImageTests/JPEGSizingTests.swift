import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("JPEG thumbnails, scale-down and orientation")
struct JPEGSizingTests {
    let coder = JPEGCoder()

    func thumbnail(_ w: Int, _ h: Int, aspect: Bool = true) -> DecodeOptions {
        DecodeOptions(thumbnailPixelSize: PixelSize(width: w, height: h), preserveAspectRatio: aspect)
    }

    @Test func dctScaleIsTheSmallestThatCoversTheTarget() throws {
        let full = PixelSize(width: 4000, height: 3000)
        let plan = try JPEGDecodePlan(source: full, orientation: .up, options: thumbnail(256, 256))
        #expect(plan.factor == JPEGScaling.Factor(num: 1, denom: 8))
        #expect(plan.decodeSize == PixelSize(width: 500, height: 375))
        #expect(plan.outputSize == PixelSize(width: 256, height: 192))
        let half = try JPEGDecodePlan(source: full, orientation: .up, options: thumbnail(1500, 1500))
        #expect(half.decodeSize.width >= 1500 && half.decodeSize.height >= 1125)
        #expect(half.decodeSize.width < 2000 || half.factor == JPEGScaling.Factor(num: 1, denom: 2))
        let whole = try JPEGDecodePlan(source: full, orientation: .up, options: .default)
        #expect(whole.decodeSize == full && whole.outputSize == full)
    }

    @Test func aPowerOfTwoScaleIsPreferredUnlessTheLimitForbidsIt() throws {
        let photo = PixelSize(width: 2040, height: 1356)
        // 3/8 (765×509) would cover 512×340 too, but its DCT is scalar and slower than 1/2's.
        let fit = try JPEGDecodePlan(source: photo, orientation: .up, options: thumbnail(512, 340))
        #expect(fit.factor == JPEGScaling.Factor(num: 1, denom: 2))
        #expect(fit.decodeSize == PixelSize(width: 1020, height: 678))
        #expect(fit.outputSize == PixelSize(width: 512, height: 340))
        // 3/4 of the width is asked for: the whole image, not 3/4 or 7/8.
        let most = try JPEGDecodePlan(source: photo, orientation: .up, options: thumbnail(1500, 1000))
        #expect(most.factor == JPEGScaling.Factor(num: 1, denom: 1))
        // When the limit forbids the whole image, the smallest covering factor of any kind is used.
        let limits = DecodeLimits(maxPixels: 2_000_000)
        let limited = try JPEGDecodePlan(source: photo, orientation: .up,
                                         options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 1500, height: 1000),
                                                                limits: limits))
        #expect(limited.factor == JPEGScaling.Factor(num: 3, denom: 4))
        #expect(limited.outputSize == PixelSize(width: 1500, height: 998))
    }

    @Test func oversizedImageScalesDownInsteadOfFailingWhenAllowed() throws {
        let limits = DecodeLimits(maxPixels: 1_000_000)
        let full = PixelSize(width: 4000, height: 3000)
        #expect(JPEGFixtures.errorCode {
            try JPEGDecodePlan(source: full, orientation: .up, options: DecodeOptions(limits: limits))
        } == .imageTooLarge)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 3000, height: 3000), limits: limits)
        let plan = try JPEGDecodePlan(source: full, orientation: .up, options: options)
        #expect(plan.decodeSize.area <= 1_000_000)
        #expect(plan.outputSize.width <= plan.decodeSize.width && plan.outputSize.height <= plan.decodeSize.height)
    }

    @Test func thumbnailOfLargeJPEG() throws {
        let data = try JPEGFixtures.solid(width: 5250, height: 3450)
        let image = try coder.decode(data, options: thumbnail(400, 300))
        #expect(image.pixelSize == PixelSize(width: 400, height: 263))
        #expect(image.isThumbnail)
        #expect(image.bitmap.pixel(x: 200, y: 130).isClose(to: RGBA(r: 128, g: 128, b: 128), tolerance: 4))
    }

    @Test func thumbnailIntoSquareBox() throws {
        let data = try JPEGFixtures.solid(width: 4000, height: 3000)
        #expect(try coder.decode(data, options: thumbnail(256, 256)).pixelSize == PixelSize(width: 256, height: 192))
        #expect(try coder.decode(data, options: thumbnail(256, 256, aspect: false)).pixelSize
                    == PixelSize(width: 256, height: 256))
    }

    @Test func smallImagesAreNotUpscaled() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants(width: 64, height: 48))
        let image = try coder.decode(data, options: thumbnail(256, 256))
        #expect(image.pixelSize == PixelSize(width: 64, height: 48))
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap))
    }

    @Test func thumbnailKeepsThePicture() throws {
        let data = try JPEGFixtures.encode(TestBitmaps.quadrants(width: 640, height: 480))
        let image = try coder.decode(data, options: thumbnail(100, 100))
        #expect(image.pixelSize == PixelSize(width: 100, height: 75))
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap))
    }

    @Test func scaleDownLimitBytes() throws {
        let data = try JPEGFixtures.solid(width: 4000, height: 3000)
        let tiny = try coder.decode(data, options: DecodeOptions(scaleDownLimitBytes: 1))
        #expect(tiny.pixelSize == PixelSize(width: 1, height: 1))
        let limit = 4_000_000
        let limited = try coder.decode(data, options: DecodeOptions(scaleDownLimitBytes: limit))
        #expect(limited.pixelSize.area <= limit / 4)
        #expect(limited.width > 1000 && limited.width < 4000)
        let roomy = try coder.decode(data, options: DecodeOptions(scaleDownLimitBytes: 100_000_000))
        #expect(roomy.pixelSize == PixelSize(width: 4000, height: 3000))
    }

    @Test(arguments: EXIFOrientation.allCases)
    func exifOrientationIsApplied(_ orientation: EXIFOrientation) throws {
        let upright = TestBitmaps.quadrants(width: 64, height: 48)
        let stored = TestBitmaps.stored(upright, for: orientation)
        let data = JPEGFixtures.withEXIF(try JPEGFixtures.encode(stored, quality: 0.95), orientation: orientation)
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == PixelSize(width: 64, height: 48))
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap))
    }

    @Test func thumbnailWithRotatingOrientation() throws {
        let upright = TestBitmaps.quadrants(width: 400, height: 300)
        let stored = TestBitmaps.stored(upright, for: .right)
        #expect(stored.size == PixelSize(width: 300, height: 400))
        let data = JPEGFixtures.withEXIF(try JPEGFixtures.encode(stored), orientation: .right)
        let image = try coder.decode(data, options: thumbnail(200, 200))
        #expect(image.pixelSize == PixelSize(width: 200, height: 150))
        #expect(TestBitmaps.isUprightQuadrants(image.bitmap))
    }
}
