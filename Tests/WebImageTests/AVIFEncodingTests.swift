import Foundation
import Testing
@testable import WebImageCodecs

/// Round trips through our AVIF encoder: lossy quality, alpha, lossless, size targets.
@Suite("AVIF encoding")
struct AVIFEncodingTests {
    let coder = AVIFCoder()
    let picture = TestBitmaps.gradient(width: 96, height: 64)

    func roundTrip(_ bitmap: Bitmap, _ options: EncodeOptions) throws -> (data: Data, image: Image) {
        let data = try coder.encode(Image(bitmap: bitmap), as: .avif, options: options)
        return (data, try coder.decode(data, options: .default))
    }

    @Test func lossyRoundTripStaysClose() throws {
        let (data, image) = try roundTrip(picture, EncodeOptions(compressionQuality: 0.8))
        #expect(ImageFormat.detect(data) == .avif)
        #expect(image.pixelSize == picture.size)
        #expect(CodecFixtures.meanDifference(image.bitmap, picture) < 4)
        #expect(!image.hasAlpha)
    }

    @Test func lowerQualityIsSmaller() throws {
        let high = try coder.encode(Image(bitmap: picture), as: .avif, options: EncodeOptions(compressionQuality: 0.9))
        let low = try coder.encode(Image(bitmap: picture), as: .avif, options: EncodeOptions(compressionQuality: 0.2))
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
        let withAlpha = TestBitmaps.gradient(width: 40, height: 30, alpha: true)
        let (_, image) = try roundTrip(withAlpha, EncodeOptions(lossless: true))
        #expect(image.bitmap == withAlpha)
    }

    @Test func maxFileSizeIsHonoured() throws {
        let unbounded = try coder.encode(Image(bitmap: picture), as: .avif, options: .default)
        let limit = unbounded.count / 3
        let fitted = try coder.encode(Image(bitmap: picture), as: .avif, options: EncodeOptions(maxFileSize: limit))
        #expect(fitted.count <= limit)
        #expect(try coder.decode(fitted, options: .default).pixelSize == picture.size)
    }

    @Test func firstFrameOnlyWritesTheFirstFrameAsAStill() throws {
        let frames = [ImageFrame(bitmap: TestBitmaps.quadrants(), duration: 0.1),
                      ImageFrame(bitmap: TestBitmaps.gradient(width: 64, height: 48), duration: 0.1)]
        let data = try coder.encode(Image(frames: frames), as: .avif,
                                    options: EncodeOptions(compressionQuality: 0.9, firstFrameOnly: true))
        #expect(coder.imageInfo(for: data)?.frameCount == 1)
        #expect(TestBitmaps.isUprightQuadrants(try coder.decode(data, options: .default).bitmap))
    }

    @Test func maxPixelSizeShrinks() throws {
        let data = try coder.encode(Image(bitmap: picture), as: .avif,
                                    options: EncodeOptions(maxPixelSize: PixelSize(width: 48, height: 48)))
        #expect(coder.imageInfo(for: data)?.pixelSize == PixelSize(width: 48, height: 32))
    }

    @Test func qualityMapsOntoTheQuantizer() {
        #expect(AVIFEncoder.quantizer(for: 1) == 0)
        #expect(AVIFEncoder.quantizer(for: 0) == 63)
        #expect(AVIFEncoder.quantizer(for: 0.5) == 32)
    }

    @Test func managerEncodesAVIFAndHEICOnlyWithAnHEVCEncoder() throws {
        #expect(CodersManager.shared.canEncode(to: .avif))
        #expect(CodersManager.shared.canEncode(to: .heic) == false && !CodersManager.shared.canEncode(to: .heif))
        #expect(CodecFixtures.errorCode { try coder.encode(Image(bitmap: picture), as: .png, options: .default) } == .unsupportedFormat)
        let decoded = try CodersManager.shared.decode(try CodecFixtures.data("avif/still-8bit.avif"), options: .default)
        // An image decoded from AVIF is written back as AVIF when no format is named.
        #expect(CodersManager.shared.defaultEncodingFormat(for: decoded) == .avif)
    }
}
