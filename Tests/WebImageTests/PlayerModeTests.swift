import Testing
import WebImage

@Suite("AnimatedImagePlayer modes, loops and seeking")
struct PlayerModeTests {
    static let orders: [(AnimatedImagePlaybackMode, [Int])] = [
        (.normal, [0, 1, 2, 3, 0, 1, 2, 3]),
        (.reverse, [3, 2, 1, 0, 3, 2, 1, 0]),
        (.bounce, [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0]),
        (.reversedBounce, [3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3]),
    ]

    @Test(arguments: orders)
    func framesPlayInTheModesOrderAcrossLoops(mode: AnimatedImagePlaybackMode, order: [Int]) async throws {
        let clock = TestClock(.manual)
        let image = try Image.lazyAnimation(durations: [0.125, 0.125, 0.125, 0.125], loopCount: 2)
        let player = AnimatedImagePlayer(image: image, clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.playbackMode = mode
        #expect(player.currentFrameIndex == order[0])
        player.start()
        await clock.wakeSleeps(1...order.count)
        await player.waitUntilEnded()

        #expect(recorder.shownFrames == order)
        #expect(recorder.log.value.shown.map(\.pixelsShow) == order)
        #expect(recorder.loops == [1, 2])
        #expect(player.currentLoopCount == 2)
        #expect(player.currentFrameIndex == order.last)
        #expect(player.hasEnded)
    }

    @Test func changingTheModeWhilePlayingKeepsTheFrameAndItsTime() async throws {
        let clock = TestClock(.manual)
        let image = try Image.lazyAnimation(durations: [0.125, 0.125, 0.25, 0.125], loopCount: 1)
        let player = AnimatedImagePlayer(image: image, clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.wakeSleeps(1...2)
        await recorder.waitForShown(3)
        await clock.waitForSleeps(3)
        clock.advance(by: seconds(0.125))
        player.playbackMode = .reverse
        // Half of frame 2 is left; then the reverse order goes on from it.
        await clock.waitForSleeps(4)
        #expect(clock.requestedSleeps[3] == seconds(0.125))
        await clock.wakeSleeps(4...6)
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [0, 1, 2, 1, 0])
        #expect(recorder.log.value.shown.map(\.at) == [0, 0.125, 0.25, 0.5, 0.625].map(seconds))
        #expect(recorder.loops == [1])
    }

    @Test func totalLoopCountOverridesTheImages() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: .heldAnimation(durations: [0.25, 0.25], loopCount: 0), clock: clock)
        #expect(player.totalLoopCount == 0)
        let recorder = PlayerRecorder(player, clock: clock)
        player.totalLoopCount = 3
        player.start()
        await clock.wakeSleeps(1...6)
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [0, 1, 0, 1, 0, 1])
        #expect(recorder.loops == [1, 2, 3])
        #expect(player.totalFrameCount == 2 && player.currentLoopCount == 3)
        // The loop handler's last call ends playback: no further sleep was asked for.
        #expect(clock.requestedSleeps.count == 6)
    }

    @Test func startAfterTheEndPlaysAgainFromTheStart() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: .heldAnimation(durations: [0.25, 0.25], loopCount: 1), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.wakeSleeps(1...2)
        await player.waitUntilEnded()
        player.start()
        await clock.wakeSleeps(3...4)
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [0, 1, 0, 1])
        #expect(recorder.loops == [1, 1])
    }

    @Test func seekShowsTheFrameAndPlaysOnFromIt() async throws {
        let clock = TestClock(.manual)
        let image = try Image.lazyAnimation(durations: [0.25, 0.25, 0.25, 0.25], loopCount: 2)
        let player = AnimatedImagePlayer(image: image, clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)

        // Seeking a player that is not playing shows the frame and stays there.
        player.seek(toFrame: 2, loopCount: 1)
        await recorder.waitForShown(1)
        #expect(recorder.shownFrames == [2])
        #expect(player.currentFrameIndex == 2 && player.currentLoopCount == 1)
        #expect(!player.isPlaying)
        #expect(clock.requestedSleeps.isEmpty)

        // Playing on from frame 2 of the second (last) loop: frames 2 and 3 remain.
        player.start()
        await clock.wakeSleeps(1...1)
        await recorder.waitForShown(2)
        // Seeking while playing (here while the player sleeps until frame 3's end) shows the
        // frame now and restarts its time.
        await clock.waitForSleeps(2)
        player.seek(toFrame: 1, loopCount: 1)
        await recorder.waitForShown(3)
        await clock.wakeSleeps(3...5)
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [2, 3, 1, 2, 3])
        #expect(recorder.loops == [2])
        let times = recorder.log.value.shown.map(\.at)
        #expect(times == [seconds(0), seconds(0.25), seconds(0.25), seconds(0.5), seconds(0.75)])
    }

    @Test func seekOutsideTheImageIsIgnored() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: .heldAnimation(durations: [0.25, 0.25]), clock: clock)
        player.seek(toFrame: 2)
        player.seek(toFrame: -1)
        #expect(player.currentFrame == nil && player.currentFrameIndex == 0)
    }

    @Test func stopGoesBackToTheStart() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: .heldAnimation(durations: [0.25, 0.25, 0.25]), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.wakeSleeps(1...1)
        await recorder.waitForShown(2)
        player.stop()
        #expect(player.currentFrame == nil && player.currentFrameIndex == 0 && player.currentLoopCount == 0)
        #expect(!player.isPlaying && !player.hasEnded)
        player.start()
        await recorder.waitForShown(3)
        #expect(recorder.shownFrames == [0, 1, 0])
        player.stop()
    }
}
