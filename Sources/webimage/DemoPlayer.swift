import Foundation
import Synchronization
import WebImage

/// An animation played once through ``AnimatedImagePlayer`` on a clock that does not wait
/// (``InstantClock``): the frames it shows, each with the time it is shown at.
enum DemoPlayer {
    /// The frames shown, at most `limit`, spread evenly over one loop of `image`.
    static func frames(of image: Image, limit: Int) async -> [ContactSheet.Tile] {
        let player = AnimatedImagePlayer(image: image, clock: InstantClock())
        player.totalLoopCount = 1
        let shown = Mutex([(index: Int, frame: Bitmap)]())
        player.frameHandler = { index, frame in shown.withLock { $0.append((index, frame)) } }
        player.start()
        await player.waitUntilEnded()
        let frames = shown.withLock { $0 }
        guard !frames.isEmpty else { return [] }
        let step = max(1, (frames.count + limit - 1) / max(1, limit))
        var startTimes = [Double](), elapsed = 0.0
        for index in 0..<image.frameCount {
            startTimes.append(elapsed)
            elapsed += image.frameDuration(at: index)
        }
        return stride(from: 0, to: frames.count, by: step).prefix(limit).map { position in
            let (index, frame) = frames[position]
            let time = index < startTimes.count ? startTimes[index] : 0
            return ContactSheet.Tile(frame, "player f\(index) " + String(format: "%.1fs", time))
        }
    }
}
