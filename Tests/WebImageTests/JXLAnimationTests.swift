import CJXL
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Animated JPEG XL: frames decoded on demand equal the eager decode and djxl's, durations and
/// the loop count come from the headers, and limits are checked before pixels are decoded.
@Suite("JPEG XL animation")
struct JXLAnimationTests {
    let coder = JXLCoder()

    /// `count` frames on a 48×32 canvas: full frames that replace everything, and cropped frames
    /// blended over the canvas (so frames depend on their predecessors).
    static func layeredAnimation(count: Int = 24, seed: UInt64 = 5) throws -> Data {
        var random = RetryStrategyTests.SeededGenerator(state: seed)
        var frames: [JXLFixtures.Samples] = []
        var settings = JXLFixtures.Settings()
        settings.loops = 3
        for index in 0..<count {
            let full = index % 8 == 0
            let width = full ? 48 : Int.random(in: 4...24, using: &random)
            let height = full ? 32 : Int.random(in: 4...16, using: &random)
            let bitmap = Bitmap(width: width, height: height) { out in
                for i in 0..<out.count { out[i] = UInt8.random(in: 0...255, using: &random) }
            }
            frames.append(JXLFixtures.Samples(bitmap))
            settings.layers.append(JXLFixtures.Layer(
                x: full ? 0 : Int32.random(in: 0...Int32(48 - width), using: &random),
                y: full ? 0 : Int32.random(in: 0...Int32(32 - height), using: &random),
                blend: full ? JXL_BLEND_REPLACE : JXL_BLEND_BLEND))
            settings.durations.append(UInt32(20 + index % 5 * 10))
        }
        return try JXLFixtures.encode(frames, settings)
    }

    @Test func framesMatchDjxlsAPNG() throws {
        let data = try CodecFixtures.data("jxl/animation.jxl")
        let image = try coder.decode(data, options: .default)
        let reference = try PNGCoder().decode(try CodecFixtures.data("jxl/reference/animation.png"),
                                              options: DecodeOptions(preloadsAllFrames: true))
        #expect(image.format == .jpegXL)
        #expect(image.frameCount == 4 && reference.frameCount == 4)
        // tools/mkapng.py: 100, 50, 200 and 30 ms. (cjxl 0.7 does not carry the APNG's two plays
        // over: the file loops forever, as djxl's APNG says.)
        #expect((0..<4).map(image.frameDuration(at:)) == [0.1, 0.05, 0.2, 0.03])
        #expect(image.loopCount == reference.loopCount)
        for index in 0..<4 {
            #expect(CodecFixtures.maxDifference(try image.frame(at: index).bitmap, try reference.frame(at: index).bitmap) <= 1,
                    "frame \(index)")
        }
    }

    @Test func everyFrameInOrderAndAtRandomEqualsTheEagerDecode() throws {
        let data = try Self.layeredAnimation()
        let eager = try coder.decode(data, options: DecodeOptions(preloadsAllFrames: true))
        let lazy = try coder.decode(data, options: .default)
        let animation = try #require(lazy.animation)
        #expect(eager.animation == nil && eager.frameCount == 24)
        #expect(lazy.frameCount == 24 && lazy.loopCount == 3 && eager.loopCount == 3)
        #expect(animation.decodeCount == 0)
        let written: [Double] = (0..<24).map { Double(20 + $0 % 5 * 10) / 1000 }
        #expect((0..<24).map(lazy.frameDuration(at:)) == written)
        #expect((0..<24).map(lazy.frameDuration(at:)) == (0..<24).map(eager.frameDuration(at:)))
        try LazyFrameChecks.expectSameFrames(lazy, eager, at: Array(0..<24))
        #expect(animation.decodeCount == 23)
        try LazyFrameChecks.expectSameFrames(lazy, eager, at: LazyFrameChecks.randomFrames(24, reads: 80, seed: 11))
    }

    @Test func croppedFramesAreComposedOnTheCanvas() throws {
        // A red canvas, then a green 8×8 square blended at (4, 2): frame 1 shows both.
        let red = Bitmap(width: 16, height: 12, fill: TestBitmaps.red)
        let green = Bitmap(width: 8, height: 8, fill: TestBitmaps.green)
        var settings = JXLFixtures.Settings()
        settings.durations = [100, 100]
        settings.layers = [JXLFixtures.Layer(), JXLFixtures.Layer(x: 4, y: 2, blend: JXL_BLEND_BLEND)]
        let data = try JXLFixtures.encode([JXLFixtures.Samples(red), JXLFixtures.Samples(green)], settings)
        let frame = try coder.decode(data, options: .default).frame(at: 1).bitmap
        #expect(frame.size == PixelSize(width: 16, height: 12))
        #expect(frame.pixel(x: 0, y: 0) == TestBitmaps.red)
        #expect(frame.pixel(x: 5, y: 3) == TestBitmaps.green)
        #expect(frame.pixel(x: 12, y: 10) == TestBitmaps.red)
    }

    @Test func zeroDurationFramesAreCoalescedIntoTheNext() throws {
        var settings = JXLFixtures.Settings()
        settings.durations = [0, 100, 0, 0, 50]
        let bitmaps = JXLFixtures.movingBars(count: 5)
        let data = try JXLFixtures.encode(bitmaps.map { JXLFixtures.Samples($0) }, settings)
        let image = try coder.decode(data, options: .default)
        #expect(image.frameCount == 2)
        #expect((0..<2).map(image.frameDuration(at:)) == [0.1, 0.05])
        #expect(coder.imageInfo(for: data)?.frameCount == 2)
        // Full frames that replace the canvas: each shown frame is the last one that made it.
        #expect(try image.frame(at: 1).bitmap == bitmaps[4])
    }

    @Test func ticksAndShortDelays() throws {
        // 30 ticks a second (tps 30/1): 3 ticks = 0.1 s; a 0-tick last frame plays as 0.1 s too.
        let data = try JXLFixtures.animation(JXLFixtures.movingBars(count: 3), durations: [3, 6, 0],
                                             loops: 0, ticksPerSecond: (30, 1))
        let image = try coder.decode(data, options: .default)
        #expect(image.loopCount == 0)
        #expect((0..<3).map(image.frameDuration(at:)).map { ($0 * 1000).rounded() } == [100, 200, 100])
    }

    @Test func firstFrameOnlyDecodesAStill() throws {
        let bitmaps = JXLFixtures.movingBars(count: 4)
        let data = try JXLFixtures.animation(bitmaps, durations: [100, 100, 100, 100], loops: 2)
        let image = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(image.frameCount == 1 && !image.isAnimated && image.loopCount == 0)
        #expect(image.bitmap == bitmaps[0])
    }

    @Test(arguments: [false, true])
    func thumbnailsScaleEveryFrameAlike(_ preload: Bool) throws {
        let data = try Self.layeredAnimation(count: 10)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 24), preloadsAllFrames: preload)
        let image = try coder.decode(data, options: options)
        let full = try coder.decode(data, options: DecodeOptions(preloadsAllFrames: true))
        #expect(image.pixelSize == PixelSize(width: 24, height: 16))
        #expect(image.isThumbnail)
        for index in 0..<10 {
            #expect(try image.frame(at: index).bitmap == Resampler.resize(full.frame(at: index).bitmap, to: image.pixelSize))
        }
    }

    @Test func tooManyFramesAreRefusedFromTheHeaders() throws {
        let data = try JXLFixtures.animation(JXLFixtures.movingBars(count: 6), durations: Array(repeating: 50, count: 6))
        for preload in [false, true] {
            let limits = DecodeLimits(maxFrames: 5)
            let error = CodecFixtures.error { try coder.decode(data, options: DecodeOptions(limits: limits, preloadsAllFrames: preload)) }
            #expect(error?.code == .imageTooLarge, "\(String(describing: error))")
            #expect(error?.message.contains("frames") == true)
        }
        #expect(try coder.decode(data, options: DecodeOptions(limits: DecodeLimits(maxFrames: 6))).frameCount == 6)
        // One frame only is always allowed.
        #expect(try coder.decode(data, options: DecodeOptions(firstFrameOnly: true, limits: DecodeLimits(maxFrames: 1))).frameCount == 1)
    }

    @Test func preloadingCountsEveryFrameAgainstTheByteLimit() throws {
        let data = try JXLFixtures.animation(JXLFixtures.movingBars(count: 6), durations: Array(repeating: 50, count: 6))
        let limits = DecodeLimits(maxTotalBytes: 48 * 32 * 4 * 5)
        let error = CodecFixtures.error { try coder.decode(data, options: DecodeOptions(limits: limits, preloadsAllFrames: true)) }
        #expect(error?.code == .imageTooLarge)
        // Decoded lazily, one frame is held at a time.
        #expect(try coder.decode(data, options: DecodeOptions(limits: limits)).frameCount == 6)
    }
}
