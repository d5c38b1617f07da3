import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("GIF encoding round trips")
struct GIFEncodingTests {
    let coder = GIFCoder()

    private func solid(_ color: RGBA, width: Int = 8, height: Int = 6) -> Bitmap {
        Bitmap(width: width, height: height, fill: color)
    }

    @Test(arguments: [0, 3])
    func animationKeepsFramesDurationsAndLoopCount(loopCount: Int) throws {
        let colors = [TestBitmaps.red, TestBitmaps.green, TestBitmaps.blue]
        let durations = [0.1, 0.25, 0.5]
        let frames = zip(colors, durations).map { ImageFrame(bitmap: solid($0), duration: $1) }
        let image = Image(frames: frames, loopCount: loopCount)
        let data = try coder.encode(image, as: .gif, options: .default)
        #expect(ImageFormat.detect(data) == .gif)
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.frames.count == 3)
        #expect(decoded.loopCount == loopCount)
        #expect(decoded.frames.map(\.duration) == durations)
        for (frame, color) in zip(decoded.frames, colors) {
            #expect(frame.bitmap.pixel(x: 4, y: 3) == color)
        }
    }

    @Test func manyColoursAreQuantizedClosely() throws {
        let source = TestBitmaps.gradient(width: 64, height: 48)
        let second = TestBitmaps.quadrants()
        let image = Image(frames: [ImageFrame(bitmap: source, duration: 0.1), ImageFrame(bitmap: second, duration: 0.1)])
        let decoded = try coder.decode(try coder.encode(image, as: .gif, options: .default), options: .default)
        #expect(decoded.frames.count == 2)
        var worst = 0
        for y in stride(from: 0, to: 48, by: 5) {
            for x in stride(from: 0, to: 64, by: 5) {
                let a = source.pixel(x: x, y: y), b = decoded.frames[0].bitmap.pixel(x: x, y: y)
                worst = max(worst, abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
                #expect(b.a == 255)
            }
        }
        #expect(worst <= 24)
        #expect(TestBitmaps.isUprightQuadrants(decoded.frames[1].bitmap, tolerance: 0))
    }

    @Test func transparentPixelsStayTransparent() throws {
        var pixels = solid(TestBitmaps.red).pixels
        pixels[3] = 0            // (0,0) fully transparent
        pixels[4 * 9 + 3] = 100  // (1,1) mostly transparent
        let still = Image(bitmap: Bitmap(width: 8, height: 6, pixels: pixels))
        let decoded = try coder.decode(try coder.encode(still, as: .gif, options: .default), options: .default)
        #expect(decoded.bitmap.pixel(x: 0, y: 0).a == 0)
        #expect(decoded.bitmap.pixel(x: 1, y: 1).a == 0)
        #expect(decoded.bitmap.pixel(x: 2, y: 2) == TestBitmaps.red)
    }

    @Test func transparentFramesDoNotShowThePreviousFrame() throws {
        var holed = solid(TestBitmaps.green).pixels
        holed[3] = 0
        let image = Image(frames: [ImageFrame(bitmap: solid(TestBitmaps.red), duration: 0.1),
                                   ImageFrame(bitmap: Bitmap(width: 8, height: 6, pixels: holed), duration: 0.1)])
        let decoded = try coder.decode(try coder.encode(image, as: .gif, options: .default), options: .default)
        #expect(decoded.frames[1].bitmap.pixel(x: 0, y: 0).a == 0)
        #expect(decoded.frames[1].bitmap.pixel(x: 1, y: 0) == TestBitmaps.green)
        #expect(decoded.frames[0].bitmap.pixel(x: 0, y: 0) == TestBitmaps.red)
    }

    @Test func stillImageIsOneFrame() throws {
        let data = try coder.encode(Image(bitmap: TestBitmaps.quadrants()), as: .gif, options: .default)
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.frames.count == 1)
        #expect(TestBitmaps.isUprightQuadrants(decoded.bitmap, tolerance: 0))
    }

    @Test func encodeOptionsPickFramesAndSize() throws {
        let image = Image(frames: [ImageFrame(bitmap: TestBitmaps.quadrants(), duration: 0.1),
                                   ImageFrame(bitmap: TestBitmaps.quadrants(), duration: 0.1)], loopCount: 0)
        let options = EncodeOptions(maxPixelSize: PixelSize(width: 32, height: 32), firstFrameOnly: true)
        let decoded = try coder.decode(try coder.encode(image, as: .gif, options: options), options: .default)
        #expect(decoded.frames.count == 1)
        #expect(decoded.pixelSize == PixelSize(width: 32, height: 24))
    }

    @Test func otherFormatsAreRefused() {
        #expect(throws: WebImageError.self) {
            try coder.encode(Image(bitmap: solid(.white)), as: .png, options: .default)
        }
    }
}
