import Foundation
import Testing
@testable import WebImageCodecs

/// HEIC encoding through libheif's HEVC encoder, where the installed libheif has one (Debian's
/// has x265); read back with the library's HEIF decoder.
@Suite("HEIC encoding", .enabled(if: HEIFEncoder.isAvailable, "this libheif has no HEVC encoder"))
struct HEIFEncodingTests {
    @Test func anOpaqueImageRoundTrips() throws {
        let picture = TestBitmaps.quadrants(width: 81, height: 61)
        let data = try CodersManager.shared.encode(Image(bitmap: picture), as: .heic,
                                                   options: EncodeOptions(compressionQuality: 0.9))
        #expect(ImageFormat.detect(data) == .heic)
        let decoded = try CodersManager.shared.decode(data, options: .default)
        #expect(decoded.format == .heic && decoded.pixelSize == PixelSize(width: 81, height: 61))
        #expect(TestBitmaps.isUprightQuadrants(decoded.bitmap, tolerance: 24))
        #expect(!decoded.bitmap.hasAlpha)
    }

    @Test func alphaIsKept() throws {
        let picture = TestBitmaps.gradient(width: 64, height: 48, alpha: true)
        let data = try HEIFCoder().encode(Image(bitmap: picture), as: .heic, options: EncodeOptions(compressionQuality: 0.9))
        let decoded = try CodersManager.shared.decode(data, options: .default).bitmap
        #expect(decoded.pixel(x: 0, y: 0).a < 16)
        #expect(decoded.pixel(x: 63, y: 47).a > 239)
        #expect(CodecFixtures.meanDifference(decoded, picture) < 6)
    }

    @Test func lowerQualityIsSmaller() throws {
        let picture = Image(bitmap: TestBitmaps.gradient(width: 128, height: 96))
        let high = try CodersManager.shared.encode(picture, as: .heic, options: EncodeOptions(compressionQuality: 0.95))
        let low = try CodersManager.shared.encode(picture, as: .heic, options: EncodeOptions(compressionQuality: 0.2))
        #expect(low.count < high.count)
    }
}
