import Foundation
import Testing
@testable import WebImageCodecs

/// ICO and CUR: the entry chosen for the size asked for, decoded (PNG entries by the PNG coder,
/// bitmap entries by gdk-pixbuf's ICO loader) to what Pillow decodes that entry to. The fixtures'
/// three entries (16, 32 and 48 pixels) show the picture turned by 0, 90 and 180 degrees.
@Suite("ICO decoding matches Pillow")
struct ICODecodingTests {
    let coder = ICOCoder()

    @Test(arguments: ["png-entries", "bmp-entries"])
    func theLargestEntryByDefault(_ name: String) throws {
        let data = try CodecFixtures.data("ico/\(name).ico")
        let image = try coder.decode(data, options: .default)
        #expect(image.format == .ico)
        #expect(image.pixelSize == PixelSize(width: 48, height: 48))
        #expect(CodecFixtures.maxDifference(image.bitmap, try CodecFixtures.data(png: "ico/reference/\(name)-48.png")) == 0)
        #expect(coder.imageInfo(for: data) == ImageInfo(format: .ico, pixelSize: PixelSize(width: 48, height: 48)))
    }

    @Test(arguments: ["png-entries", "bmp-entries"])
    func aThumbnailTakesTheSmallestEntryThatCoversIt(_ name: String) throws {
        let data = try CodecFixtures.data("ico/\(name).ico")
        for (box, entry) in [(16, 16), (10, 16), (17, 32), (32, 32), (33, 48), (64, 48)] {
            let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: box, height: box))
            let image = try coder.decode(data, options: options)
            let shown = min(box, 48)
            let reference = try CodecFixtures.data(png: "ico/reference/\(name)-\(entry).png")
            let want = shown == entry ? reference : Resampler.resize(reference, to: PixelSize(width: shown, height: shown))
            #expect(image.pixelSize == PixelSize(width: shown, height: shown), "box \(box)")
            #expect(CodecFixtures.maxDifference(image.bitmap, want) == 0, "box \(box) should use the \(entry)-pixel entry")
        }
    }

    @Test func bitmapEntriesKeepTheirAlpha() throws {
        let image = try coder.decode(try CodecFixtures.data("ico/bmp-entries.ico"), options: .default)
        #expect(image.hasAlpha)
    }

    @Test func cursorsDecodeAsIcons() throws {
        var bytes = [UInt8](try CodecFixtures.data("ico/bmp-entries.ico"))
        bytes[2] = 2 // type 2: cursor; the planes and bit-count fields become the hot spot
        for i in 0..<3 { bytes[6 + 16 * i + 4] = 3; bytes[6 + 16 * i + 6] = 5 }
        let data = Data(bytes)
        #expect(ImageFormat.detect(data) == .ico)
        let image = try CodersManager.shared.decode(data, options: .default)
        #expect(image.format == .ico)
        #expect(CodecFixtures.maxDifference(image.bitmap, try CodecFixtures.data(png: "ico/reference/bmp-entries-48.png")) == 0)
    }

    @Test func managerRoutesICOToThisCoder() throws {
        let data = try CodecFixtures.data("ico/png-entries.ico")
        #expect(ImageFormat.detect(data) == .ico)
        #expect(CodersManager.shared.decoder(for: data) is ICOCoder)
        #expect(ImageFormat(fileExtension: "cur") == .ico)
    }
}

extension CodecFixtures {
    /// The PNG at `path` under Tests/Fixtures, decoded.
    static func data(png path: String) throws -> Bitmap {
        try PNGCoder().decode(try data(path), options: .default).bitmap
    }
}
