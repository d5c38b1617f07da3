import Foundation
import Testing
@testable import WebImageCodecs

/// HEIC/HEIF pixels against libheif's reference tool (`heif-convert`): still, alpha, 10-bit, a
/// grid, a `mif1`-only file, premultiplied alpha.
@Suite("HEIF decoding matches heif-convert")
struct HEIFDecodingTests {
    let coder = HEIFCoder()

    @Test(arguments: ["still", "alpha", "still-10bit", "odd-grid"])
    func pixelsMatchTheReferenceDecoder(_ name: String) throws {
        let path = "heif/\(name).heic"
        let image = try coder.decode(try CodecFixtures.data(path), options: .default)
        let reference = try CodecFixtures.reference(path)
        #expect(image.format == .heic)
        #expect(image.pixelSize == reference.size)
        // heif-convert writes the 10-bit file as a 16-bit PNG, read back by its high byte.
        #expect(CodecFixtures.maxDifference(image.bitmap, reference) <= (name == "still-10bit" ? 1 : 0))
    }

    @Test func alphaIsKeptAndOpaqueFilesAreOpaque() throws {
        #expect(try coder.decode(try CodecFixtures.data("heif/alpha.heic"), options: .default).hasAlpha)
        #expect(!(try coder.decode(try CodecFixtures.data("heif/still.heic"), options: .default).hasAlpha))
    }

    @Test func oddSizeGridIsCroppedToItsOutputSize() throws {
        let data = try CodecFixtures.data("heif/odd-grid.heic")
        #expect(coder.imageInfo(for: data)?.pixelSize == PixelSize(width: 63, height: 47))
    }

    @Test func genericBrandsDecodeAsHEIF() throws {
        let data = try CodecFixtures.data("heif/mif1-only.heif")
        #expect(ImageFormat.detect(data) == .heif)
        #expect(CodersManager.shared.decoder(for: data) is HEIFCoder)
        let image = try CodersManager.shared.decode(data, options: .default)
        #expect(image.format == .heif)
        #expect(CodecFixtures.maxDifference(image.bitmap, try CodecFixtures.reference("heif/mif1-only.heif")) == 0)
        #expect(CodersManager.shared.imageInfo(for: data) == ImageInfo(format: .heif, pixelSize: PixelSize(width: 64, height: 48)))
    }

    /// libheif 1.15 hands premultiplied colour back as stored (heif-convert writes it so); the
    /// coder divides it out, as every bitmap of the library has straight alpha.
    @Test func premultipliedAlphaIsDividedOut() throws {
        let image = try coder.decode(try CodecFixtures.data("heif/premultiplied.heic"), options: .default)
        let stored = try CodecFixtures.reference("heif/premultiplied.heic")
        let expected = stored.pixels.withUnsafeBufferPointer { source in
            Bitmap(width: stored.width, height: stored.height) { out in
                _ = out.initialize(from: source)
                HEIFPixels.unpremultiply(out)
            }
        }
        #expect(CodecFixtures.maxDifference(image.bitmap, expected) == 0)
        #expect(image.bitmap != stored)
    }

    @Test func unpremultiplyRounds() {
        var pixels: [UInt8] = [64, 32, 0, 128, 10, 20, 30, 0, 200, 100, 50, 255, 90, 10, 0, 60]
        pixels.withUnsafeMutableBufferPointer { HEIFPixels.unpremultiply($0) }
        #expect(pixels == [128, 64, 0, 128, 10, 20, 30, 0, 200, 100, 50, 255, 255, 43, 0, 60])
    }
}
