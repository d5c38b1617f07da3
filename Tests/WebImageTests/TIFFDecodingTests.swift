import Foundation
import Testing
@testable import WebImageCodecs

/// TIFF pixels against Pillow's decode of the same files (Tests/Fixtures/tiff, made by Pillow,
/// tiffcp and tiffset): each colour layout, each way of storing the samples, the Orientation tag.
@Suite("TIFF decoding matches Pillow")
struct TIFFDecodingTests {
    let coder = TIFFCoder()

    @Test(arguments: ["rgb8", "rgba8", "gray8", "gray16", "gray-alpha", "gray1", "palette8", "cmyk",
                      "orientation-3", "orientation-6", "orientation-8"])
    func pixelsMatchPillow(_ name: String) throws {
        let path = "tiff/\(name).tif"
        let image = try coder.decode(try CodecFixtures.data(path), options: .default)
        let reference = try CodecFixtures.reference(path)
        #expect(image.format == .tiff)
        #expect(image.pixelSize == reference.size)
        // CMYK: Pillow's naive formula truncates where ours rounds. Palette: Pillow writes 8-bit
        // entries as v × 256 and reads them back by the high byte; the TIFF specification makes
        // 65535 full intensity, so v × 256 / 257 rounds to v - 1 from 129 up (as libtiff reads it).
        #expect(CodecFixtures.maxDifference(image.bitmap, reference) <= (["cmyk", "palette8"].contains(name) ? 1 : 0))
    }

    /// libtiff's copier rewrote rgb8.tif's pixels in other layouts: every one decodes to them exactly.
    @Test(arguments: ["rgb8-planar", "rgb8-tiled", "rgb8-tiled-planar", "rgb8-bigtiff", "rgb8-bigendian",
                      "rgb8-packbits"])
    func storageLayoutsDecodeTheSamePixels(_ name: String) throws {
        let image = try coder.decode(try CodecFixtures.data("tiff/\(name).tif"), options: .default)
        #expect(CodecFixtures.maxDifference(image.bitmap, try CodecFixtures.reference("tiff/rgb8.tif")) == 0)
    }

    @Test func jpegCompressedFilesDecodeThroughLibjpeg() throws {
        // Pillow's JPEG-in-TIFF (RGB) against Pillow's decode of it; tiffcp's YCbCr 2x2 one against
        // the lossless original, within what JPEG at quality 90 keeps.
        let rgb = try coder.decode(try CodecFixtures.data("tiff/rgb8-jpeg.tif"), options: .default)
        #expect(CodecFixtures.maxDifference(rgb.bitmap, try CodecFixtures.reference("tiff/rgb8-jpeg.tif")) <= 2)
        let ycbcr = try coder.decode(try CodecFixtures.data("tiff/ycbcr-jpeg.tif"), options: .default)
        #expect(CodecFixtures.meanDifference(ycbcr.bitmap, try CodecFixtures.reference("tiff/rgb8.tif")) < 4)
    }

    @Test func alphaIsStraight() throws {
        let image = try coder.decode(try CodecFixtures.data("tiff/rgba8.tif"), options: .default)
        #expect(image.hasAlpha)
        #expect(image.bitmap.pixel(x: 2, y: 2).a == 255)
        #expect(image.bitmap.pixel(x: 47, y: 2).a < 16)
        #expect(!(try coder.decode(try CodecFixtures.data("tiff/rgb8.tif"), options: .default)).hasAlpha)
    }

    @Test func orientationSwapsTheShownSize() throws {
        let data = try CodecFixtures.data("tiff/orientation-6.tif")
        #expect(coder.imageInfo(for: data) == ImageInfo(format: .tiff, pixelSize: PixelSize(width: 32, height: 48),
                                                         orientation: .right))
        #expect(try coder.decode(data, options: .default).pixelSize == PixelSize(width: 32, height: 48))
    }

    @Test func managerRoutesTIFFToThisCoder() throws {
        let data = try CodecFixtures.data("tiff/rgb8.tif")
        #expect(ImageFormat.detect(data) == .tiff)
        #expect(CodersManager.shared.decoder(for: data) is TIFFCoder)
        #expect(try CodersManager.shared.decode(data, options: .default).format == .tiff)
        #expect(CodersManager.shared.imageInfo(for: data) == ImageInfo(format: .tiff, pixelSize: PixelSize(width: 48, height: 32)))
        #expect(ImageFormat.detect(try CodecFixtures.data("tiff/rgb8-bigtiff.tif")) == .tiff)
        #expect(ImageFormat.detect(try CodecFixtures.data("tiff/rgb8-bigendian.tif")) == .tiff)
    }
}
