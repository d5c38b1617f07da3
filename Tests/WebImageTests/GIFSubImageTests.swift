import CGIF
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Sub-images without a delay are drawn together with the ones after them (``GIFFrameGrouping``):
/// a picture stored as tiles shows whole, in the still, the first frame and a thumbnail.
@Suite("GIF sub-images")
struct GIFSubImageTests {
    let coder = GIFCoder()
    typealias Frame = GIFFixtures.Frame

    /// A 4×4 picture stored as four 2×2 tiles (red, green, blue, white), no graphics controls:
    /// how encoders store more than 256 colours.
    func tiles(loopCount: Int? = nil) -> Data {
        var frames: [Frame] = []
        for (i, (x, y)) in [(0, 0), (2, 0), (0, 2), (2, 2)].enumerated() {
            var tile = Frame.solid(UInt8((i + 1) % 4), x: x, y: y, width: 2, height: 2)
            tile.hasControl = false
            frames.append(tile)
        }
        return GIFFixtures.make(width: 4, height: 4, frames: frames, loopCount: loopCount)
    }

    func expectWhole(_ bitmap: Bitmap, scale: Int = 1) {
        #expect(bitmap.pixel(x: 0, y: 0) == TestBitmaps.red)
        #expect(bitmap.pixel(x: 3 / scale, y: 0) == TestBitmaps.green)
        #expect(bitmap.pixel(x: 0, y: 3 / scale) == TestBitmaps.blue)
        #expect(bitmap.pixel(x: 3 / scale, y: 3 / scale) == .white)
    }

    @Test func tilesWithoutDelaysMakeOneStill() throws {
        let image = try coder.decode(tiles(), options: .default)
        #expect(image.frames.count == 1)
        #expect(!image.isAnimated)
        expectWhole(image.bitmap)
    }

    @Test func firstFrameAndThumbnailShowTheWholePicture() throws {
        let first = try coder.decode(tiles(), options: DecodeOptions(firstFrameOnly: true))
        expectWhole(first.bitmap)
        let thumbnail = try coder.decode(tiles(), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 2, height: 2)))
        #expect(thumbnail.pixelSize == PixelSize(width: 2, height: 2))
        // Each tile a pixel, its colour foremost (lanczos3 lends it a little of its neighbours).
        let tops = [(0, 0, TestBitmaps.red), (1, 0, TestBitmaps.green), (0, 1, TestBitmaps.blue), (1, 1, RGBA.white)]
        for (x, y, colour) in tops {
            let p = thumbnail.bitmap.pixel(x: x, y: y)
            #expect(abs(Int(p.r) - Int(colour.r)) < 40 && abs(Int(p.g) - Int(colour.g)) < 40
                    && abs(Int(p.b) - Int(colour.b)) < 40, "at \(x),\(y): \(p)")
        }
    }

    @Test func lazyFramesComposeAlike() throws {
        // Red full canvas (0.5 s), then a green tile without delay and a blue tile with 0.5 s.
        var red = Frame.solid(1, width: 4, height: 4)
        red.delay = 50
        var green = Frame.solid(2, x: 0, y: 0, width: 2, height: 2)
        green.delay = 0
        var blue = Frame.solid(3, x: 2, y: 2, width: 2, height: 2)
        blue.delay = 50
        let gif = GIFFixtures.make(width: 4, height: 4, frames: [red, green, blue], loopCount: 0)
        for preloads in [false, true] {
            let image = try coder.decode(gif, options: DecodeOptions(preloadsAllFrames: preloads))
            #expect(image.frameCount == 2, "preloaded: \(preloads)")
            #expect([image.frameDuration(at: 0), image.frameDuration(at: 1)] == [0.5, 0.5])
            let second = try image.frame(at: 1).bitmap
            #expect(second.pixel(x: 0, y: 0) == TestBitmaps.green)
            #expect(second.pixel(x: 3, y: 3) == TestBitmaps.blue)
            #expect(second.pixel(x: 3, y: 0) == TestBitmaps.red)
        }
    }

    /// Where a sub-image without delay can only be meant as a frame, browsers' reading is kept:
    /// every sub-image covers the canvas, or the file has a loop extension.
    @Test func undelayedAnimationsStillAnimate() throws {
        let whole = (1...3).map { i -> Frame in
            var frame = Frame.solid(UInt8(i), width: 2, height: 2)
            frame.hasControl = false
            return frame
        }
        let replacing = try coder.decode(GIFFixtures.make(width: 2, height: 2, frames: whole), options: .default)
        #expect(replacing.frames.map(\.duration) == [0.1, 0.1, 0.1])
        let looping = try coder.decode(tiles(loopCount: 0), options: .default)
        #expect(looping.frames.count == 4)
    }

    @Test func groupingRule() {
        let canvas = PixelSize(width: 4, height: 4)
        let whole = GIFRect(x: 0, y: 0, width: 4, height: 4), tile = GIFRect(x: 0, y: 0, width: 2, height: 2)
        #expect(GIFFrameGrouping.endsFrame([(0, tile), (0, tile), (0, tile)], canvas: canvas, hasLoopExtension: false) == [false, false, true])
        #expect(GIFFrameGrouping.endsFrame([(5, whole), (0, tile), (5, tile), (0, tile)], canvas: canvas, hasLoopExtension: true) == [true, false, true, true])
        #expect(GIFFrameGrouping.endsFrame([(0, whole), (0, whole)], canvas: canvas, hasLoopExtension: false) == [true, true])
        #expect(GIFFrameGrouping.endsFrame([(0, tile), (0, tile)], canvas: canvas, hasLoopExtension: true) == [true, true])
        #expect(GIFFrameGrouping.endsFrame([], canvas: canvas, hasLoopExtension: false) == [])
    }
}
