import CTIFF
import Foundation
import Testing
@testable import WebImageCodecs

/// The TIFF encoder writes lossless 8-bit RGB or RGBA that this decoder, libtiff and Pillow read
/// back exactly.
@Suite("TIFF encoding")
struct TIFFEncodingTests {
    let coder = TIFFCoder()

    @Test func rgbaAndRGBRoundTripExactly() throws {
        for bitmap in [TestBitmaps.gradient(width: 67, height: 45, alpha: true), TestBitmaps.quadrants(),
                       TestBitmaps.gradient(width: 1, height: 1, alpha: false), TestBitmaps.gradient(width: 300, height: 500, alpha: false)] {
            let data = try coder.encode(Image(bitmap: bitmap), as: .tiff, options: .default)
            #expect(ImageFormat.detect(data) == .tiff)
            let decoded = try coder.decode(data, options: .default)
            #expect(decoded.bitmap == bitmap, "\(bitmap.size)")
        }
    }

    @Test func theFileIsLZWWithThePredictorAndAlphaOnlyWhenNeeded() throws {
        func tags(_ bitmap: Bitmap) throws -> (compression: UInt16, predictor: UInt16, samples: UInt16, extra: [UInt16]) {
            let data = try coder.encode(Image(bitmap: bitmap), as: .tiff, options: .default)
            return try data.withUnsafeBytes { raw in
                try TIFFFile.withFile(raw.bindMemory(to: UInt8.self), maxAllocation: 1 << 24) { file in
                    let directory = try TIFFDirectory(file, at: .chained(0))
                    var predictor: UInt16 = 0
                    _ = ctiff_get_u16(file.tiff, UInt32(TIFFTAG_PREDICTOR), &predictor)
                    return (directory.compression, predictor, UInt16(directory.samplesPerPixel), directory.extraSamples)
                }
            }
        }
        let opaque = try tags(TestBitmaps.quadrants())
        #expect(opaque.compression == UInt16(COMPRESSION_LZW) && opaque.predictor == UInt16(PREDICTOR_HORIZONTAL))
        #expect(opaque.samples == 3 && opaque.extra.isEmpty)
        let clear = try tags(TestBitmaps.gradient(width: 9, height: 9, alpha: true))
        #expect(clear.samples == 4 && clear.extra == [UInt16(EXTRASAMPLE_UNASSALPHA)])
    }

    @Test func managerEncodesTIFFAndShrinksToMaxPixelSize() throws {
        let image = Image(bitmap: TestBitmaps.gradient(width: 64, height: 32, alpha: false))
        #expect(CodersManager.shared.canEncode(to: .tiff))
        let data = try CodersManager.shared.encode(image, as: .tiff, options: EncodeOptions(maxPixelSize: PixelSize(width: 16, height: 16)))
        #expect(try CodersManager.shared.decode(data, options: .default).pixelSize == PixelSize(width: 16, height: 8))
        #expect(CodecFixtures.errorCode { try coder.encode(image, as: .png, options: .default) } == .unsupportedFormat)
    }

    /// Pillow, when this machine has it, reads the encoder's file to the same pixels.
    @Test(.enabled(if: PillowCheck.available, "python3 with Pillow is not installed"))
    func pillowReadsTheEncodedFile() async throws {
        let bitmap = TestBitmaps.gradient(width: 37, height: 21, alpha: true)
        let data = try coder.encode(Image(bitmap: bitmap), as: .tiff, options: .default)
        let pixels = try await PillowCheck.rgbaPixels(of: data)
        #expect(pixels == bitmap.pixels)
    }
}
