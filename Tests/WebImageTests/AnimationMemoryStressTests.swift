import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs

/// A GIF whose eager decode would take gigabytes plays through with a bounded frame buffer: CI
/// runs 200 frames of 720×720 (415 MB eagerly); `make stress` (WEBIMAGE_STRESS=full) runs 1,000
/// (2.07 GB eagerly) and holds the process to 200 MB resident.
@Suite("Animated images under memory stress", .serialized)
struct AnimationMemoryStressTests {
    static let full = ProcessInfo.processInfo.environment["WEBIMAGE_STRESS"] == "full"

    /// `count` frames on a 720×720 canvas: a full first frame, then 96×96 squares moving over it.
    static func bigAnimation(frames count: Int) -> Data {
        var frames = [GIFFixtures.Frame.solid(0, width: 720, height: 720)]
        for index in 1..<count {
            var square = GIFFixtures.Frame.solid(UInt8(1 + index % 3), x: (index * 37) % 624, y: (index * 53) % 624,
                                                 width: 96, height: 96)
            square.delay = 4
            frames.append(square)
        }
        return GIFFixtures.make(width: 720, height: 720, frames: frames, loopCount: 0)
    }

    @Test func aGigabyteAnimationPlaysThroughInABoundedBuffer() throws {
        let count = Self.full ? 1_000 : 200
        let gif = Self.bigAnimation(frames: count)
        let before = ProcessMemory.residentBytes()
        let image = try CodersManager.shared.decode(gif, options: .default)
        let animation = try #require(image.animation)
        let eagerBytes = count * 720 * 720 * 4
        #expect(image.frameCount == count)
        let buffer = 16 << 20
        let request = animation.requestBuffer(bytes: buffer)
        var peak = before
        var heldPeak = 0
        for index in 0..<count {
            let frame = try image.frame(at: index)
            #expect(frame.bitmap.size == PixelSize(width: 720, height: 720))
            heldPeak = max(heldPeak, animation.heldBytes)
            if index % 25 == 0 { peak = max(peak, ProcessMemory.residentBytes()) }
        }
        withExtendedLifetime(request) {}
        #expect(heldPeak <= buffer)
        #expect(animation.decodeCount == count - 1)  // each frame decoded once, in order
        let growth = peak - before
        print("animation stress: \(count) frames of 720×720 (\(eagerBytes >> 20) MiB eagerly), \(gif.count >> 10) KiB of GIF, 16 MiB buffer: RSS \(before >> 20) → peak \(peak >> 20) MiB, buffer peak \(heldPeak >> 20) MiB")
        #expect(growth < 150 << 20, "RSS grew \(growth >> 20) MiB playing an animation that is \(eagerBytes >> 20) MiB eagerly")
        if Self.full { #expect(peak <= 200 << 20, "peak RSS \(peak >> 20) MiB") }
    }
}
