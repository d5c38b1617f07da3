import Foundation
import Synchronization
import Testing
import WebImage

/// The README's player quick start, on a GIF made here and a clock whose sleeps return at once,
/// so the README stays true.
@Suite("README player example")
struct ReadmePlayerExampleTests {
    @Test func playerQuickStart() async throws {
        let frames = [TestBitmaps.red, TestBitmaps.green, TestBitmaps.blue].map {
            ImageFrame(bitmap: Bitmap(width: 8, height: 8, fill: $0), duration: 0.1)
        }
        let data = try CodersManager.shared.encode(Image(frames: frames, loopCount: 2), as: .gif, options: .default)

        let gif = try CodersManager.shared.decode(data, options: .default)
        let player = AnimatedImagePlayer(image: gif, clock: TestClock(.immediate))
        player.playbackMode = .bounce
        player.playbackRate = 2
        player.maxBufferSize = 16 << 20
        let shown = Mutex([Int]())
        let loops = Mutex([Int]())
        player.frameHandler = { index, _ in shown.withLock { $0.append(index) } }
        player.loopHandler = { count in loops.withLock { $0.append(count) } }
        player.start()
        await player.waitUntilEnded()

        #expect(shown.withLock { $0 } == [0, 1, 2, 1, 0, 1, 2, 1, 0])
        #expect(loops.withLock { $0 } == [1, 2])
        #expect(player.shownFrameCount == 9 && player.droppedFrameCount == 0)
    }
}
