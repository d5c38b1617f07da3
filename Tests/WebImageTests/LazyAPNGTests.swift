import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Lazily decoded APNG animations: every frame, in any order, equals the eager decode, with each
/// blend and dispose operation and frames that need no predecessor.
@Suite("Lazy APNG animations")
struct LazyAPNGTests {
    /// `count` frames on a 12×10 canvas: random rectangles, translucent pixels, every blend and
    /// dispose operation, and some full-canvas frames that replace everything.
    static func mixedAnimation(count: Int = 40, seed: UInt64 = 3) -> Data {
        var random = RetryStrategyTests.SeededGenerator(state: seed)
        let canvas = PixelSize(width: 12, height: 10)
        var frames: [PNGFixtures.Frame] = []
        for index in 0..<count {
            let full = index == 0 || index % 7 == 3
            let width = full ? 12 : Int.random(in: 1...12, using: &random)
            let height = full ? 10 : Int.random(in: 1...10, using: &random)
            let bitmap = Bitmap(width: width, height: height) { out in
                for i in 0..<out.count { out[i] = UInt8.random(in: 0...255, using: &random) }
            }
            var frame = PNGFixtures.Frame(bitmap: bitmap)
            frame.x = full ? 0 : Int.random(in: 0...(12 - width), using: &random)
            frame.y = full ? 0 : Int.random(in: 0...(10 - height), using: &random)
            frame.dispose = UInt8.random(in: 0...2, using: &random)
            frame.blend = full && index % 2 == 1 ? 0 : UInt8.random(in: 0...1, using: &random)
            frame.delay = (UInt16(index % 3), 100)
            frames.append(frame)
        }
        return PNGFixtures.apng(canvas: canvas, frames: frames, plays: 2)
    }

    @Test func everyFrameInOrderAndAtRandomEqualsTheEagerDecode() throws {
        let data = Self.mixedAnimation()
        let eager = try PNGCoder().decode(data, options: DecodeOptions(preloadsAllFrames: true))
        let lazy = try PNGCoder().decode(data, options: .default)
        let animation = try #require(lazy.animation)
        #expect(eager.animation == nil)
        #expect(lazy.format == .apng && lazy.frameCount == 40 && lazy.loopCount == 2)
        #expect(animation.decodeCount == 0)
        #expect((0..<40).map(lazy.frameDuration(at:)) == (0..<40).map(eager.frameDuration(at:)))
        try LazyFrameChecks.expectSameFrames(lazy, eager, at: Array(0..<40))
        #expect(animation.decodeCount == 39)
        try LazyFrameChecks.expectSameFrames(lazy, eager, at: LazyFrameChecks.randomFrames(40, reads: 100, seed: 9))
    }

    @Test func thumbnailsScaleEveryFrameAlike() throws {
        let data = Self.mixedAnimation(count: 10)
        let box = DecodeOptions(thumbnailPixelSize: PixelSize(width: 6, height: 6))
        var eagerBox = box
        eagerBox.preloadsAllFrames = true
        let eager = try PNGCoder().decode(data, options: eagerBox)
        let lazy = try PNGCoder().decode(data, options: box)
        #expect(lazy.pixelSize == PixelSize(width: 6, height: 5))
        #expect(lazy.frames == eager.frames)
    }

    @Test func aDamagedFrameFailsAloneAndTheOthersStillDecode() throws {
        let data = Self.mixedAnimation(count: 6)
        let eager = try PNGCoder().decode(data, options: DecodeOptions(preloadsAllFrames: true))
        // Flip a byte inside the last fdAT chunk's zlib data: its CRC no longer matches.
        var damaged = data
        let bytes = [UInt8](data)
        let fdAT = try #require((0..<bytes.count - 4).last { bytes[$0..<$0 + 4].elementsEqual("fdAT".utf8) })
        damaged[fdAT + 10] ^= 0xFF
        let lazy = try PNGCoder().decode(damaged, options: .default)
        #expect(lazy.frameCount == 6)
        #expect(throws: WebImageError.self) { try lazy.frame(at: 5) }
        #expect(try lazy.frame(at: 4).bitmap == eager.frame(at: 4).bitmap)
    }
}
