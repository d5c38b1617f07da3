import Foundation
import Testing
@testable import WebImageCodecs

/// `irot` and `imir`, which libavif reports but does not apply: compared with heif-convert
/// (libheif applies them), and the mapping onto EXIF orientations.
@Suite("AVIF orientation")
struct AVIFOrientationTests {
    let coder = AVIFCoder()

    @Test(arguments: [("irot1", PixelSize(width: 48, height: 64)), ("irot3-imir1", PixelSize(width: 48, height: 64)),
                      ("imir0", PixelSize(width: 64, height: 48))])
    func turnedAsLibheifTurnsThem(_ name: String, shown: PixelSize) throws {
        let path = "avif/\(name).avif"
        let data = try CodecFixtures.data(path)
        let image = try coder.decode(data, options: .default)
        #expect(image.pixelSize == shown)
        #expect(coder.imageInfo(for: data)?.pixelSize == shown)
        // libheif converts YUV to RGB on its own, so a few levels apart at most.
        #expect(CodecFixtures.maxDifference(image.bitmap, try CodecFixtures.reference(path)) <= 6)
    }

    @Test func thumbnailBoxAppliesToTheShownSize() throws {
        let data = try CodecFixtures.data("avif/irot1.avif")
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 24)))
        #expect(image.pixelSize == PixelSize(width: 18, height: 24))
        let reference = Resampler.resize(try CodecFixtures.reference("avif/irot1.avif"), to: image.pixelSize)
        #expect(CodecFixtures.maxDifference(image.bitmap, reference) <= 12)
    }

    /// Each irot/imir pair equals an EXIF orientation: the same turn of a test picture.
    @Test(arguments: 0..<4)
    func quarterTurnsAndMirrorsMapOntoEXIF(_ turns: Int) {
        let picture = TestBitmaps.quadrants(width: 6, height: 4)
        var turned = picture
        for _ in 0..<turns { turned = Self.turnAnticlockwise(turned) }
        #expect(picture.applying(EXIFOrientation(quarterTurnsAnticlockwise: turns, thenMirror: nil)) == turned)
        #expect(picture.applying(EXIFOrientation(quarterTurnsAnticlockwise: turns, thenMirror: 1)) == Self.mirrorLeftRight(turned))
        #expect(picture.applying(EXIFOrientation(quarterTurnsAnticlockwise: turns, thenMirror: 0)) == Self.mirrorTopBottom(turned))
    }

    static func turnAnticlockwise(_ b: Bitmap) -> Bitmap {
        remap(b, width: b.height, height: b.width) { x, y in (b.width - 1 - y, x) }
    }

    static func mirrorLeftRight(_ b: Bitmap) -> Bitmap {
        remap(b, width: b.width, height: b.height) { x, y in (b.width - 1 - x, y) }
    }

    static func mirrorTopBottom(_ b: Bitmap) -> Bitmap {
        remap(b, width: b.width, height: b.height) { x, y in (x, b.height - 1 - y) }
    }

    /// A `width`×`height` bitmap whose pixel (x, y) is `b`'s pixel at `source(x, y)`.
    static func remap(_ b: Bitmap, width: Int, height: Int, source: (Int, Int) -> (Int, Int)) -> Bitmap {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let (sx, sy) = source(x, y)
                let p = b.pixel(x: sx, y: sy)
                pixels += [p.r, p.g, p.b, p.a]
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }
}
