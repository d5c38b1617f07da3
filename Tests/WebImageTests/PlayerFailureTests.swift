import Foundation
import Testing
import WebImage

@Suite("AnimatedImagePlayer damaged frames and stills")
struct PlayerFailureTests {
    @Test func aDamagedFrameEndsPlaybackOnTheLastGoodFrameAndIsReportedOnce() async throws {
        let clock = TestClock(.manual)
        let decoder = SolidFrameDecoder(failingFrame: 3)
        let image = try Image.lazyAnimation(durations: Array(repeating: 0.125, count: 6), loopCount: 0, decoder: decoder)
        let player = AnimatedImagePlayer(image: image, clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.wakeSleeps(1...3)
        await player.waitUntilEnded()

        #expect(recorder.shownFrames == [0, 1, 2])
        #expect(recorder.errors.count == 1)
        #expect(recorder.errors.first?.contains("Frame 3") == true)
        #expect(player.hasEnded && !player.isPlaying)
        #expect(player.currentFrameIndex == 2)
        #expect(SolidFrameDecoder.index(of: try #require(player.currentFrame)) == 2)
        #expect(player.currentLoopCount == 0)
        // The image stays usable: its other frames still decode.
        #expect(SolidFrameDecoder.index(of: try image.frame(at: 4).bitmap) == 4)

        // Playing again ends at the same frame without a second report.
        player.start()
        await clock.wakeSleeps(4...6)
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [0, 1, 2, 0, 1, 2])
        #expect(recorder.errors.count == 1)
    }

    @Test func aStillImageIsShownOnceAndEnds() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: Image(bitmap: Bitmap(width: 4, height: 3, fill: SolidFrameDecoder.color(of: 0))),
                                         clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        #expect(player.totalFrameCount == 1)
        player.start()
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [0])
        #expect(player.hasEnded && player.currentLoopCount == 0)
        #expect(recorder.loops.isEmpty)
        #expect(clock.requestedSleeps.isEmpty)
    }

    @Test func framesBuiltWithoutDurationsPlayAtTheSubstituteDelay() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: .heldAnimation(durations: [0, 0, 0], loopCount: 1), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.wakeSleeps(1...3)
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [0, 1, 2])
        #expect(clock.requestedSleeps == Array(repeating: seconds(0.1), count: 3))
    }

    @Test func anEncodedGIFPlaysItsDecodedFrames() async throws {
        let colors = [TestBitmaps.red, TestBitmaps.green, TestBitmaps.blue]
        let frames = colors.map { ImageFrame(bitmap: Bitmap(width: 6, height: 5, fill: $0), duration: 0.2) }
        let data = try CodersManager().encode(Image(frames: frames, loopCount: 2), as: .gif, options: .default)
        let image = try CodersManager().decode(data, options: .default)
        let expected = try (0..<3).map { try image.frame(at: $0).bitmap }

        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: image, clock: clock)
        let shown = Watched([Bitmap]())
        player.frameHandler = { _, frame in shown.update { $0.append(frame) } }
        #expect(player.totalLoopCount == 2)
        player.start()
        await clock.wakeSleeps(1...6)
        await player.waitUntilEnded()
        #expect(shown.value == expected + expected)
        #expect(clock.requestedSleeps.allSatisfy { $0 == seconds(0.2) })
    }
}
