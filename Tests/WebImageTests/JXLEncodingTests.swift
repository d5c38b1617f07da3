import Foundation
import Testing
@testable import WebImageCodecs

/// Round trips through our JPEG XL encoder: lossy quality, alpha, lossless, size targets.
@Suite("JPEG XL encoding")
struct JXLEncodingTests {
    let coder = JXLCoder()
    let picture = TestBitmaps.gradient(width: 96, height: 64)

    func roundTrip(_ bitmap: Bitmap, _ options: EncodeOptions) throws -> (data: Data, image: Image) {
        let data = try coder.encode(Image(bitmap: bitmap), as: .jpegXL, options: options)
        return (data, try coder.decode(data, options: .default))
    }

    @Test func lossyRoundTripStaysClose() throws {
        let (data, image) = try roundTrip(picture, EncodeOptions(compressionQuality: 0.9))
        #expect(ImageFormat.detect(data) == .jpegXL)
        #expect(image.pixelSize == picture.size)
        #expect(CodecFixtures.meanDifference(image.bitmap, picture) < 3)
        #expect(!image.hasAlpha)
        #expect(image.colorProfile == .sRGB)
    }

    @Test func lowerQualityIsSmaller() throws {
        let high = try coder.encode(Image(bitmap: picture), as: .jpegXL, options: EncodeOptions(compressionQuality: 0.9))
        let low = try coder.encode(Image(bitmap: picture), as: .jpegXL, options: EncodeOptions(compressionQuality: 0.2))
        #expect(low.count < high.count)
    }

    @Test func alphaSurvives() throws {
        let withAlpha = TestBitmaps.gradient(width: 64, height: 48, alpha: true)
        let (_, image) = try roundTrip(withAlpha, EncodeOptions(compressionQuality: 0.9))
        #expect(image.hasAlpha)
        let alphaError = zip(image.bitmap.pixels, withAlpha.pixels).enumerated()
            .filter { $0.offset % 4 == 3 }.map { abs(Int($0.element.0) - Int($0.element.1)) }.max() ?? 0
        #expect(alphaError <= 4)
    }

    @Test func losslessIsExact() throws {
        for bitmap in [TestBitmaps.gradient(width: 40, height: 30, alpha: true), TestBitmaps.quadrants(), picture] {
            let (_, image) = try roundTrip(bitmap, EncodeOptions(lossless: true))
            #expect(image.bitmap == bitmap)
        }
    }

    @Test func maxFileSizeIsHonoured() throws {
        let unbounded = try coder.encode(Image(bitmap: picture), as: .jpegXL, options: .default)
        let limit = unbounded.count / 3
        let fitted = try coder.encode(Image(bitmap: picture), as: .jpegXL, options: EncodeOptions(maxFileSize: limit))
        #expect(fitted.count <= limit)
        #expect(try coder.decode(fitted, options: .default).pixelSize == picture.size)
    }

    @Test func animationsAreWrittenAsTheirFirstFrame() throws {
        let frames = [ImageFrame(bitmap: TestBitmaps.quadrants(), duration: 0.1),
                      ImageFrame(bitmap: TestBitmaps.gradient(width: 64, height: 48), duration: 0.1)]
        let data = try coder.encode(Image(frames: frames), as: .jpegXL, options: EncodeOptions(compressionQuality: 0.9))
        #expect(coder.imageInfo(for: data)?.frameCount == 1)
        #expect(TestBitmaps.isUprightQuadrants(try coder.decode(data, options: .default).bitmap))
    }

    @Test func maxPixelSizeShrinks() throws {
        let data = try coder.encode(Image(bitmap: picture), as: .jpegXL,
                                    options: EncodeOptions(maxPixelSize: PixelSize(width: 48, height: 48)))
        #expect(coder.imageInfo(for: data)?.pixelSize == PixelSize(width: 48, height: 32))
    }

    @Test func qualityMapsOntoCjxlsDistanceScale() {
        #expect(abs(JXLEncoder.distance(forQuality: 100) - 0.1) < 1e-6)
        #expect(abs(JXLEncoder.distance(forQuality: 90) - 1.0) < 1e-6)
        #expect(abs(JXLEncoder.distance(forQuality: 30) - 6.4) < 1e-5)
        #expect(JXLEncoder.distance(forQuality: 0) == JXLEncoder.maxDistance)
        let distances = stride(from: 0.0, through: 100, by: 5).map(JXLEncoder.distance(forQuality:))
        #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 >= $1 })
    }

    @Test func managerEncodesJPEGXL() throws {
        #expect(CodecFixtures.errorCode { try coder.encode(Image(bitmap: picture), as: .png, options: .default) } == .unsupportedFormat)
        let decoded = try CodersManager.shared.decode(try CodecFixtures.data("jxl/still-lossy.jxl"), options: .default)
        // An image decoded from JPEG XL is written back as JPEG XL when no format is named.
        #expect(CodersManager.shared.defaultEncodingFormat(for: decoded) == .jpegXL)
        let data = try CodersManager.shared.encode(Image(bitmap: picture), as: .jpegXL, options: EncodeOptions(compressionQuality: 0.8))
        #expect(ImageFormat.detect(data) == .jpegXL)
    }
}
