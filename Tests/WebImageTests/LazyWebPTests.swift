import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// Lazily decoded animated WebP: every frame, in order and at random (an earlier frame starts the
/// decoder again), equals the eager decode, with sub-rectangles, blending and disposal.
@Suite("Lazy animated WebP")
struct LazyWebPTests {
    static func mixedAnimation(count: Int = 24, seed: UInt64 = 17) throws -> Data {
        var random = RetryStrategyTests.SeededGenerator(state: seed)
        let frames = (0..<count).map { index -> WebPCompositionTests.Frame in
            let full = index == 0
            let width = full ? 20 : Int.random(in: 1...20, using: &random)
            let height = full ? 20 : Int.random(in: 1...20, using: &random)
            let bitmap = Bitmap(width: width, height: height) { out in
                for i in 0..<out.count { out[i] = UInt8.random(in: 0...255, using: &random) }
            }
            return WebPCompositionTests.Frame(
                bitmap: bitmap, x: full ? 0 : 2 * Int.random(in: 0...(20 - width) / 2, using: &random),
                y: full ? 0 : 2 * Int.random(in: 0...(20 - height) / 2, using: &random),
                disposeToBackground: Bool.random(using: &random), alphaBlend: Bool.random(using: &random))
        }
        return try WebPCompositionTests.animation(frames)
    }

    @Test func everyFrameInOrderAndAtRandomEqualsTheEagerDecode() throws {
        let data = try Self.mixedAnimation()
        let eager = try WebPCoder().decode(data, options: DecodeOptions(preloadsAllFrames: true))
        let lazy = try WebPCoder().decode(data, options: .default)
        let animation = try #require(lazy.animation)
        #expect(eager.animation == nil)
        #expect(lazy.frameCount == 24 && lazy.loopCount == eager.loopCount && lazy.format == .webp)
        #expect(animation.decodeCount == 0)
        #expect((0..<24).map(lazy.frameDuration(at:)) == (0..<24).map(eager.frameDuration(at:)))
        try LazyFrameChecks.expectSameFrames(lazy, eager, at: Array(0..<24))
        #expect(animation.decodeCount == 23)
        try LazyFrameChecks.expectSameFrames(lazy, eager, at: LazyFrameChecks.randomFrames(24, reads: 40, seed: 4))
    }

    @Test func thumbnailsScaleEveryFrameAlike() throws {
        let data = try Self.mixedAnimation(count: 6)
        let box = DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10))
        var eagerBox = box
        eagerBox.preloadsAllFrames = true
        let lazy = try WebPCoder().decode(data, options: box)
        #expect(lazy.pixelSize == PixelSize(width: 10, height: 10))
        #expect(lazy.frames == (try WebPCoder().decode(data, options: eagerBox)).frames)
    }
}
