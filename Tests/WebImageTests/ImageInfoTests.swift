import Foundation
import Testing
@testable import WebImageCodecs

/// Reading a header without decoding: the format and the size as shown, for every built-in
/// format, and nothing for bytes that hold no whole header.
@Suite("Image info from the header")
struct ImageInfoTests {
    let coders = CodersManager()
    let bitmap = TestBitmaps.gradient(width: 40, height: 30)

    @Test func everyBuiltInFormatTellsItsSize() throws {
        for format in [ImageFormat.jpeg, .png, .webp, .gif] {
            let data = try coders.encode(Image(bitmap: bitmap, format: format), as: format, options: .default)
            let info = try #require(coders.imageInfo(for: data), "\(format)")
            // The formats that can animate tell their frame count from the header.
            let frames: Int? = format == .jpeg ? nil : 1
            #expect(info == ImageInfo(format: format, pixelSize: PixelSize(width: 40, height: 30), frameCount: frames),
                    "\(format)")
        }
    }

    @Test func animationsTellTheirFrameCountFromTheirStructure() throws {
        let gif = GIFFixtures.make(width: 8, height: 8, frames: (0..<5).map { GIFFixtures.Frame.solid(UInt8($0 % 4), width: 8, height: 8) })
        #expect(coders.imageInfo(for: gif)?.frameCount == 5)
        let webp = try WebPFixtures.animation([TestBitmaps.red, TestBitmaps.green, TestBitmaps.blue], durations: [0.1, 0.1, 0.1])
        #expect(coders.imageInfo(for: webp)?.frameCount == 3)
        let frame = PNGFixtures.Frame(bitmap: PNGFixtures.solid(4, 4, TestBitmaps.red))
        let apng = PNGFixtures.apng(canvas: PixelSize(width: 4, height: 4), frames: [frame, frame], declaredFrames: 10_000)
        // An APNG's count is what its acTL declares, read before a frame is decoded.
        #expect(coders.imageInfo(for: apng)?.frameCount == 10_000)
    }

    @Test func aJPEGTurnedByItsEXIFOrientationShowsSwapped() throws {
        let jpeg = try JPEGFixtures.encode(bitmap)
        for orientation in EXIFOrientation.allCases {
            let info = try #require(coders.imageInfo(for: JPEGFixtures.withEXIF(jpeg, orientation: orientation)))
            let shown = orientation.swapsDimensions ? PixelSize(width: 30, height: 40) : PixelSize(width: 40, height: 30)
            #expect(info.pixelSize == shown, "orientation \(orientation.rawValue)")
            #expect(info.orientation == orientation)
            // The decoder agrees with the header.
            #expect(try coders.decode(JPEGFixtures.withEXIF(jpeg, orientation: orientation), options: .default)
                .pixelSize == shown)
        }
    }

    @Test func bytesWithoutAWholeHeaderTellNothing() throws {
        let png = try coders.encode(Image(bitmap: bitmap, format: .png), as: .png, options: .default)
        let jpeg = try JPEGFixtures.encode(bitmap)
        #expect(coders.imageInfo(for: png.prefix(20)) == nil)
        #expect(coders.imageInfo(for: jpeg.prefix(10)) == nil)
        #expect(coders.imageInfo(for: Data("not an image".utf8)) == nil)
        #expect(coders.imageInfo(for: Data()) == nil)
    }
}
