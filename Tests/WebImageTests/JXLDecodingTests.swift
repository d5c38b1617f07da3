import Foundation
import Testing
@testable import WebImageCodecs

/// JPEG XL files made by cjxl decode to what libjxl's reference decoder (`djxl`) writes: lossy
/// (XYB) and lossless, alpha, a 16-bit source, the container format.
@Suite("JPEG XL decoding matches djxl")
struct JXLDecodingTests {
    let coder = JXLCoder()

    @Test(arguments: ["still-lossy", "still-lossless", "alpha", "still-16bit", "container"])
    func pixelsMatchTheReferenceDecoder(_ name: String) throws {
        let path = "jxl/\(name).jxl"
        let image = try coder.decode(try CodecFixtures.data(path), options: .default)
        let reference = try CodecFixtures.reference(path)
        #expect(image.format == .jpegXL)
        #expect(!image.isAnimated)
        #expect(image.pixelSize == reference.size)
        // djxl writes its PNG from libjxl's float output with its own rounding; one step apart at most.
        #expect(CodecFixtures.maxDifference(image.bitmap, reference) <= 1, "\(name)")
    }

    @Test func losslessFilesGiveTheSourceBack() throws {
        let image = try coder.decode(try CodecFixtures.data("jxl/still-lossless.jxl"), options: .default)
        // tools/mkpng.py's picture: the top-left quadrant starts at (220, 40, 40).
        #expect(image.bitmap.pixel(x: 0, y: 0) == RGBA(r: 220, g: 40, b: 40))
        #expect(image.colorProfile == .sRGB)
    }

    @Test func alphaIsStraightAndKept() throws {
        for name in ["alpha", "container"] {
            let image = try coder.decode(try CodecFixtures.data("jxl/\(name).jxl"), options: .default)
            #expect(image.hasAlpha, "\(name)")
            // The picture's alpha ramps from opaque (left quarter) to clear at the right edge.
            #expect(image.bitmap.pixel(x: 2, y: 10).a == 255)
            #expect(image.bitmap.pixel(x: 63, y: 10).a < 16)
        }
    }

    @Test func opaqueImagesGetOpaqueAlpha() throws {
        for name in ["still-lossy", "still-lossless", "still-16bit"] {
            let image = try coder.decode(try CodecFixtures.data("jxl/\(name).jxl"), options: .default)
            #expect(!image.hasAlpha, "\(name)")
        }
    }

    @Test func headerOnlyInfo() throws {
        let still = try CodecFixtures.data("jxl/still-lossy.jxl")
        #expect(coder.imageInfo(for: still) == ImageInfo(format: .jpegXL, pixelSize: PixelSize(width: 64, height: 48), frameCount: 1))
        let container = try CodecFixtures.data("jxl/container.jxl")
        #expect(coder.imageInfo(for: container)?.pixelSize == PixelSize(width: 64, height: 48))
        let animation = try CodecFixtures.data("jxl/animation.jxl")
        #expect(coder.imageInfo(for: animation)?.frameCount == 4)
        #expect(coder.imageInfo(for: try CodecFixtures.data("avif/still-8bit.avif")) == nil)
    }

    @Test func managerRoutesJPEGXLToThisCoder() throws {
        for name in ["still-lossy", "container"] {
            let data = try CodecFixtures.data("jxl/\(name).jxl")
            #expect(ImageFormat.detect(data) == .jpegXL)
            #expect(CodersManager.shared.decoder(for: data) is JXLCoder)
            #expect(try CodersManager.shared.decode(data, options: .default).format == .jpegXL)
            #expect(CodersManager.shared.imageInfo(for: data)?.format == .jpegXL)
        }
        #expect(CodersManager.shared.canEncode(to: .jpegXL))
    }
}

/// Thumbnails of still JPEG XL images: decoded at full size (libjxl has no reduced-size decode),
/// then resampled to the box or the byte budget.
@Suite("JPEG XL thumbnails")
struct JXLThumbnailTests {
    let coder = JXLCoder()

    @Test func thumbnailIsTheResampledFullDecode() throws {
        let data = try CodecFixtures.data("jxl/alpha.jxl")
        let full = try coder.decode(data, options: .default)
        let box = DecodeOptions(thumbnailPixelSize: PixelSize(width: 32, height: 32))
        let thumbnail = try coder.decode(data, options: box)
        #expect(thumbnail.pixelSize == PixelSize(width: 32, height: 24))
        #expect(thumbnail.isThumbnail)
        #expect(thumbnail.bitmap == Resampler.resize(full.bitmap, to: thumbnail.pixelSize))
        let stretched = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16),
                                                                      preserveAspectRatio: false))
        #expect(stretched.pixelSize == PixelSize(width: 16, height: 16))
    }

    @Test func byteBudgetAndNoUpscale() throws {
        let data = try CodecFixtures.data("jxl/still-lossless.jxl")
        let budget = try coder.decode(data, options: DecodeOptions(scaleDownLimitBytes: 32 * 24 * 4))
        #expect(budget.pixelSize == PixelSize(width: 32, height: 24))
        let larger = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 500, height: 500)))
        #expect(larger.pixelSize == PixelSize(width: 64, height: 48))
    }
}
