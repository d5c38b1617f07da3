import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("JPEG encoding")
struct JPEGEncodingTests {
    let coder = JPEGCoder()

    @Test func encodesOnlyJPEG() throws {
        #expect(coder.canEncode(to: .jpeg))
        #expect(!coder.canEncode(to: .png))
        let image = Image(bitmap: TestBitmaps.quadrants())
        #expect(JPEGFixtures.errorCode { try coder.encode(image, as: .png, options: .default) } == .unsupportedFormat)
        let data = try coder.encode(image, as: .jpeg, options: .default)
        #expect(ImageFormat.detect(data) == .jpeg)
    }

    @Test func qualityChangesSizeAndMaxFileSizeFallsBetween() throws {
        let image = Image(bitmap: TestBitmaps.gradient(width: 256, height: 256))
        let best = try coder.encode(image, as: .jpeg, options: EncodeOptions(compressionQuality: 1))
        let worst = try coder.encode(image, as: .jpeg, options: EncodeOptions(compressionQuality: 0.1))
        #expect(best.count > worst.count * 2)
        let limit = (best.count + worst.count) / 2
        let fitted = try coder.encode(image, as: .jpeg, options: EncodeOptions(maxFileSize: limit))
        #expect(fitted.count <= limit)
        #expect(fitted.count > worst.count)
        #expect(try coder.decode(fitted, options: .default).pixelSize == image.pixelSize)
    }

    @Test func unreachableMaxFileSizeGivesTheSmallestOutput() throws {
        let image = Image(bitmap: TestBitmaps.gradient(width: 128, height: 128))
        let smallest = try coder.encode(image, as: .jpeg, options: EncodeOptions(compressionQuality: 0))
        let data = try coder.encode(image, as: .jpeg, options: EncodeOptions(maxFileSize: 10))
        #expect(data.count == smallest.count)
        #expect(try coder.decode(data, options: .default).pixelSize == image.pixelSize)
    }

    @Test func transparencyIsFlattenedOverTheBackground() throws {
        let image = Image(bitmap: Bitmap(width: 16, height: 16, fill: .clear))
        let black = try coder.encode(image, as: .jpeg, options: EncodeOptions(backgroundColor: .black))
        #expect(try coder.decode(black, options: .default).bitmap.pixel(x: 1, y: 1).isClose(to: .black, tolerance: 3))
        let white = try coder.encode(image, as: .jpeg, options: .default)
        #expect(try coder.decode(white, options: .default).bitmap.pixel(x: 1, y: 1).isClose(to: .white, tolerance: 3))
    }

    @Test func halfTransparentPixelsBlend() throws {
        let image = Image(bitmap: Bitmap(width: 16, height: 16, fill: RGBA(r: 255, g: 0, b: 0, a: 128)))
        let data = try coder.encode(image, as: .jpeg, options: EncodeOptions(backgroundColor: .black))
        let pixel = try coder.decode(data, options: .default).bitmap.pixel(x: 8, y: 8)
        #expect(pixel.isClose(to: RGBA(r: 128, g: 0, b: 0), tolerance: 12))
    }

    @Test func maxPixelSizeShrinksBeforeEncoding() throws {
        let image = Image(bitmap: TestBitmaps.quadrants(width: 400, height: 300))
        let data = try coder.encode(image, as: .jpeg, options: EncodeOptions(maxPixelSize: PixelSize(width: 200, height: 200)))
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.pixelSize == PixelSize(width: 200, height: 150))
        #expect(TestBitmaps.isUprightQuadrants(decoded.bitmap))
    }

    @Test func firstFrameOfAnAnimationIsEncoded() throws {
        let frames = [ImageFrame(bitmap: TestBitmaps.quadrants(), duration: 0.1),
                      ImageFrame(bitmap: Bitmap(width: 64, height: 48, fill: .white), duration: 0.1)]
        let data = try coder.encode(Image(frames: frames), as: .jpeg, options: .default)
        #expect(TestBitmaps.isUprightQuadrants(try coder.decode(data, options: .default).bitmap))
    }
}
