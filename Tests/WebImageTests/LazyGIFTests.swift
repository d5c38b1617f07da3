import CGIF
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Lazily decoded GIF animations: every frame, in any order, equals the eager decode of the same
/// file, and the header tells frame count, loop count and durations before any frame is decoded.
@Suite("Lazy GIF animations")
struct LazyGIFTests {
    /// A 16×12 animation of `count` frames with every disposal method, transparency, interlacing,
    /// rectangles partly off the canvas, and some frames that need no predecessor.
    static func mixedAnimation(count: Int = 48, seed: UInt64 = 7) -> Data {
        var random = RetryStrategyTests.SeededGenerator(state: seed)
        var frames: [GIFFixtures.Frame] = []
        for index in 0..<count {
            let width = Int.random(in: 1...18, using: &random), height = Int.random(in: 1...14, using: &random)
            var frame = GIFFixtures.Frame(
                x: Int.random(in: 0...10, using: &random), y: Int.random(in: 0...8, using: &random),
                width: width, height: height,
                indices: (0..<width * height).map { _ in UInt8.random(in: 0...3, using: &random) })
            frame.disposal = Int32.random(in: 0...3, using: &random)
            if Bool.random(using: &random) { frame.transparentIndex = Int32.random(in: 0...3, using: &random) }
            frame.interlaced = index % 5 == 3
            // 1 centisecond plays as 0.1 s; a sub-image without delay is drawn with the next one.
            frame.delay = Int32(index % 4)
            if index % 9 == 4 {  // a full, opaque frame: decoding may start here
                frame = .solid(UInt8(index % 4), width: 16, height: 12)
                frame.delay = 7
            }
            if index % 13 == 8 {  // clears the whole canvas after it: the next frame starts fresh
                frame = .solid(2, width: 16, height: 12)
                frame.disposal = Int32(DISPOSE_BACKGROUND)
            }
            frames.append(frame)
        }
        return GIFFixtures.make(width: 16, height: 12, frames: frames, loopCount: 3)
    }

    @Test func everyFrameInOrderEqualsTheEagerDecode() throws {
        let gif = Self.mixedAnimation()
        let eager = try GIFCoder().decode(gif, options: DecodeOptions(preloadsAllFrames: true))
        let lazy = try GIFCoder().decode(gif, options: .default)
        #expect(eager.animation == nil)
        let animation = try #require(lazy.animation)
        #expect(lazy.frameCount == eager.frameCount)
        #expect(lazy.loopCount == 3)
        #expect(animation.decodeCount == 0)  // the header alone gave count, loops, durations
        #expect((0..<lazy.frameCount).map(lazy.frameDuration(at:)) == (0..<eager.frameCount).map(eager.frameDuration(at:)))
        // Sub-images 0 (no delay) and 1 (0.01 s) make frame 0; then 0.02 s and 0.03 s.
        #expect(lazy.frameDuration(at: 0) == 0.1 && lazy.frameDuration(at: 1) == 0.02 && lazy.frameDuration(at: 2) == 0.03)
        try LazyFrameChecks.expectSameFrames(lazy, eager, at: Array(0..<eager.frameCount))
        // One pass decodes each frame once: the canvas is carried forward.
        #expect(animation.decodeCount == eager.frameCount - 1)
    }

    @Test func framesInRandomOrderEqualTheEagerDecode() throws {
        let gif = Self.mixedAnimation(seed: 11)
        let eager = try GIFCoder().decode(gif, options: DecodeOptions(preloadsAllFrames: true))
        let lazy = try GIFCoder().decode(gif, options: .default)
        let scan = try gif.withUnsafeBytes { try GIFAnimationScan($0, limits: .default) }
        #expect(scan.frames.filter(\.isKeyframe).count > 3)
        try LazyFrameChecks.expectSameFrames(lazy, eager, at: LazyFrameChecks.randomFrames(eager.frameCount, reads: 120, seed: 5))
    }

    @Test func thumbnailsAndByteBudgetsScaleEveryFrameAlike() throws {
        let gif = Self.mixedAnimation(count: 12)
        for options in [DecodeOptions(thumbnailPixelSize: PixelSize(width: 8, height: 8)),
                        DecodeOptions(scaleDownLimitBytes: 12 * 8 * 6 * 4)] {
            var eagerOptions = options
            eagerOptions.preloadsAllFrames = true
            let eager = try GIFCoder().decode(gif, options: eagerOptions)
            let lazy = try GIFCoder().decode(gif, options: options)
            #expect(lazy.pixelSize == eager.pixelSize)
            #expect(lazy.frames == eager.frames)
        }
    }

    @Test func theLargestLoopCountAndZeroDelaysAreKept() throws {
        var frames = (0..<3).map { GIFFixtures.Frame.solid(UInt8($0 + 1), width: 4, height: 4) }
        for index in frames.indices { frames[index].delay = 0 }
        let gif = GIFFixtures.make(width: 4, height: 4, frames: frames, loopCount: 65535)
        let lazy = try GIFCoder().decode(gif, options: .default)
        #expect(lazy.loopCount == 65535)
        #expect((0..<3).map(lazy.frameDuration(at:)) == [0.1, 0.1, 0.1])  // 0 plays as 0.1 s
        #expect(abs(lazy.duration - 0.3) < 1e-9)
    }

    @Test func firstFrameOnlyAndStillsHoldNoAnimation() throws {
        let gif = Self.mixedAnimation(count: 6)
        let first = try GIFCoder().decode(gif, options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frameCount == 1 && first.animation == nil)
        let still = GIFFixtures.make(width: 4, height: 4, frames: [.solid(1, width: 4, height: 4)])
        #expect(try GIFCoder().decode(still, options: .default).animation == nil)
    }

    @Test func aFrameWhoseDataIsCutIsNotCountedAndDamageFailsOnlyThatFrame() throws {
        let gif = Self.mixedAnimation(count: 10)
        let full = try GIFCoder().decode(gif, options: DecodeOptions(preloadsAllFrames: true))
        // Cut inside the last frame: it is not part of the animation.
        let cut = try GIFCoder().decode(gif.prefix(gif.count - 6), options: .default)
        #expect(cut.frameCount == full.frameCount - 1)
        #expect(try cut.frame(at: cut.frameCount - 1).bitmap == full.frame(at: cut.frameCount - 1).bitmap)

        // Corrupt the LZW data of the last frame (its sub-blocks stay well formed): the frames
        // before it still decode, that frame throws a decoding error.
        let scan = try gif.withUnsafeBytes { try GIFAnimationScan($0, limits: .default) }
        var damaged = gif
        let lastFrameData = scan.frames[scan.frames.count - 1].subImages[0].offset + 10 + 2  // descriptor, code size, block length
        for offset in lastFrameData..<min(lastFrameData + 4, damaged.count - 2) { damaged[offset] = 0xFF }
        let lazy = try GIFCoder().decode(damaged, options: .default)
        #expect(try lazy.frame(at: 1).bitmap == full.frame(at: 1).bitmap)
        #expect(throws: WebImageError.self) { try lazy.frame(at: lazy.frameCount - 1) }
        // The failure leaves the decoder usable for other frames.
        #expect(try lazy.frame(at: 2).bitmap == full.frame(at: 2).bitmap)
    }

    @Test func transformersApplyToEachFrameWhenItIsDecoded() throws {
        let gif = Self.mixedAnimation(count: 8)
        let lazy = try GIFCoder().decode(gif, options: .default)
        let eager = try GIFCoder().decode(gif, options: DecodeOptions(preloadsAllFrames: true))
        let flip = FlippingTransformer(horizontal: true, vertical: false)
        let flippedLazy = try #require(flip.transformedImage(lazy, forKey: "k"))
        let flippedEager = try #require(flip.transformedImage(eager, forKey: "k"))
        let animation = try #require(flippedLazy.animation)
        #expect(animation.decodeCount == 0)
        // Eight sub-images, the first (no delay) drawn with the second: seven frames.
        #expect(flippedLazy.frameCount == 7 && flippedLazy.loopCount == 3 && flippedLazy.format == .gif)
        #expect(flippedLazy.frames == flippedEager.frames)
    }

    @Test func encodingALazyAnimationWritesEveryFrame() throws {
        let gif = Self.mixedAnimation(count: 9)
        let lazy = try GIFCoder().decode(gif, options: .default)
        for format in [ImageFormat.gif, .webp, .png] {
            let data = try CodersManager().encode(lazy, as: format, options: EncodeOptions(lossless: true))
            let again = try CodersManager().decode(data, options: DecodeOptions(preloadsAllFrames: true))
            #expect(again.frameCount == 8, "\(format)")  // nine sub-images, the first drawn with the second
            #expect(again.loopCount == 3, "\(format)")
            if format != .gif {  // lossless formats give the pixels back
                #expect(again.frames.map(\.bitmap) == lazy.frames.map(\.bitmap), "\(format)")
            }
        }
    }
}
