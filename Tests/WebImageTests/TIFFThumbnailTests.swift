import Foundation
import Testing
@testable import WebImageCodecs

/// A pyramid TIFF's reduced-resolution images serve thumbnails: the smallest one at least the
/// thumbnail's size, in the main chain or as SubIFDs; otherwise the first image is resampled.
@Suite("TIFF thumbnails")
struct TIFFThumbnailTests {
    let coder = TIFFCoder()
    static let red = RGBA(r: 220, g: 30, b: 30, a: 255)
    static let green = RGBA(r: 30, g: 200, b: 30, a: 255)
    static let blue = RGBA(r: 30, g: 30, b: 210, a: 255)

    /// A 160×120 red picture whose reduced levels are other colours: green 80×60, blue 40×30.
    static func pyramid(asSubIFDs: Bool) throws -> Data {
        let main = TIFFFixtures.Page.solid(160, 120, red)
        var half = TIFFFixtures.Page.solid(80, 60, green)
        var quarter = TIFFFixtures.Page.solid(40, 30, blue)
        half.reduced = true
        quarter.reduced = true
        return asSubIFDs ? try TIFFFixtures.file([main], subIFDs: [half, quarter])
            : try TIFFFixtures.file([main, half, quarter])
    }

    func colour(_ data: Data, box: Int) throws -> (RGBA, PixelSize) {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: box, height: box))
        let image = try coder.decode(data, options: options)
        return (image.bitmap.pixel(x: image.width / 2, y: image.height / 2), image.pixelSize)
    }

    @Test(arguments: [false, true])
    func theSmallestLevelCoveringTheBoxIsDecoded(asSubIFDs: Bool) throws {
        let data = try Self.pyramid(asSubIFDs: asSubIFDs)
        #expect(try colour(data, box: 30) == (Self.blue, PixelSize(width: 30, height: 23)))
        #expect(try colour(data, box: 40) == (Self.blue, PixelSize(width: 40, height: 30)))
        #expect(try colour(data, box: 41) == (Self.green, PixelSize(width: 41, height: 31)))
        #expect(try colour(data, box: 80) == (Self.green, PixelSize(width: 80, height: 60)))
        #expect(try colour(data, box: 100) == (Self.red, PixelSize(width: 100, height: 75)))
        #expect(try coder.decode(data, options: .default).bitmap.pixel(x: 5, y: 5) == Self.red)
        // The header names the first image only.
        #expect(coder.imageInfo(for: data)?.pixelSize == PixelSize(width: 160, height: 120))
    }

    @Test func aByteBudgetUsesTheLevelsToo() throws {
        let data = try Self.pyramid(asSubIFDs: false)
        let image = try coder.decode(data, options: DecodeOptions(scaleDownLimitBytes: 50 * 40 * 4))
        #expect(image.bitmap.pixel(x: 2, y: 2) == Self.green)
        #expect(image.pixelSize.area * 4 <= 50 * 40 * 4)
    }

    @Test func aLevelServesWhenTheFirstImageIsOverTheLimit() throws {
        let data = try Self.pyramid(asSubIFDs: false)
        let limits = DecodeLimits(maxPixels: 80 * 60)
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50), limits: limits)
        #expect(try coder.decode(data, options: thumbnail).bitmap.pixel(x: 2, y: 2) == Self.green)
        let full = CodecFixtures.error { try coder.decode(data, options: DecodeOptions(limits: limits)) }
        #expect(full?.code == .imageTooLarge)
    }

    @Test func levelsNotMarkedReducedOrOfAnotherShapeAreIgnored() throws {
        // A multi-page file (the second page not a reduced image) and a reduced image of another
        // shape: neither is a thumbnail of the first page.
        var other = TIFFFixtures.Page.solid(80, 60, Self.green)
        var squashed = TIFFFixtures.Page.solid(40, 10, Self.blue)
        squashed.reduced = true
        other.reduced = false
        let data = try TIFFFixtures.file([.solid(160, 120, Self.red), other, squashed])
        #expect(try colour(data, box: 30).0 == Self.red)
    }

    @Test func orientationAppliesToTheLevelChosen() throws {
        var main = TIFFFixtures.Page.solid(160, 120, Self.red)
        var half = TIFFFixtures.Page.solid(80, 60, Self.green)
        main.orientation = 6
        half.reduced = true
        let data = try TIFFFixtures.file([main, half])
        // Shown 120×160: a 60×80 box is covered by the 80×60 level turned.
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 60, height: 80)))
        #expect(image.pixelSize == PixelSize(width: 60, height: 80))
        #expect(image.bitmap.pixel(x: 3, y: 3) == Self.green)
    }

    @Test(arguments: ["pyramid", "pyramid-subifd"])
    func libvipsPyramidsDecodeAtEveryLevel(_ name: String) throws {
        // libvips' pyramids (JPEG tiles) of rgb8.tif scaled 4x: each thumbnail looks like the
        // original picture at that size.
        let data = try CodecFixtures.data("tiff/\(name).tif")
        let reference = try CodecFixtures.reference("tiff/rgb8.tif")
        let full = try coder.decode(data, options: .default)
        #expect(full.pixelSize == PixelSize(width: 192, height: 128))
        let small = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 48, height: 32)))
        #expect(small.pixelSize == reference.size)
        #expect(CodecFixtures.meanDifference(small.bitmap, reference) < 6)
    }
}
