import Testing
import WebImage

@Suite("AnimatedImagePlayer timing")
struct PlayerTimingTests {
    let durations = [0.125, 0.25, 0.5, 0.125]

    @Test func eachFrameIsShownAtItsDueInstant() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: try .lazyAnimation(durations: durations, loopCount: 1), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.wakeSleeps(1...4)
        await player.waitUntilEnded()

        #expect(recorder.log.value.shown == [
            .init(index: 0, at: seconds(0), pixelsShow: 0),
            .init(index: 1, at: seconds(0.125), pixelsShow: 1),
            .init(index: 2, at: seconds(0.375), pixelsShow: 2),
            .init(index: 3, at: seconds(0.875), pixelsShow: 3),
        ])
        // One sleep per frame, each exactly until the frame's time is over: no polling.
        #expect(clock.requestedSleeps == durations.map(seconds))
        #expect(recorder.loops == [1])
        #expect(player.hasEnded && !player.isPlaying)
        #expect(player.currentFrameIndex == 3 && player.currentLoopCount == 1)
        #expect(player.droppedFrameCount == 0 && player.shownFrameCount == 4)
    }

    @Test func nothingIsShownBeforeItsTime() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: try .lazyAnimation(durations: durations), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.waitForSleeps(1)
        clock.advance(by: seconds(0.0625))
        // Frame 1 can only follow the sleep until 0.125 s, which has not returned.
        #expect(recorder.shownFrames == [0])
        clock.advance(by: seconds(0.0625))
        await recorder.waitForShown(2)
        #expect(recorder.log.value.shown.last?.at == seconds(0.125))
        player.stop()
    }

    @Test(arguments: [2.0, 0.5])
    func rateScalesEveryFrame(rate: Double) async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: try .lazyAnimation(durations: durations, loopCount: 1), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.playbackRate = rate
        player.start()
        await clock.wakeSleeps(1...4)
        await player.waitUntilEnded()

        #expect(clock.requestedSleeps == durations.map { seconds($0 / rate) })
        var due = 0.0
        var expected: [Duration] = []
        for duration in durations { expected.append(seconds(due)); due += duration / rate }
        #expect(recorder.log.value.shown.map(\.at) == expected)
        #expect(recorder.shownFrames == [0, 1, 2, 3])
    }

    @Test func pauseKeepsThePartOfTheFramePlayed() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: try .lazyAnimation(durations: [0.25, 0.25, 0.25]), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.waitForSleeps(1)
        clock.advance(by: seconds(0.125))
        player.pause()
        #expect(!player.isPlaying)
        clock.advance(by: seconds(10))
        #expect(recorder.shownFrames == [0])

        player.start()
        // The new sleep asks only for what was left of frame 0.
        await clock.waitForSleeps(2)
        #expect(clock.requestedSleeps[1] == seconds(0.125))
        clock.advance(by: seconds(0.125))
        await recorder.waitForShown(2)
        #expect(recorder.log.value.shown[1] == .init(index: 1, at: seconds(10.25), pixelsShow: 1))
        player.stop()
    }

    @Test func rateZeroHoldsTheFrameUntilARateIsSet() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: try .lazyAnimation(durations: [0.25, 0.25, 0.25]), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.waitForSleeps(1)
        clock.advance(by: seconds(0.125))
        player.playbackRate = 0
        clock.advance(by: seconds(5))
        #expect(recorder.shownFrames == [0])
        #expect(player.isPlaying)

        player.playbackRate = 0.5
        // The 0.125 s left of frame 0 take 0.25 s at half speed.
        await clock.waitForSleeps(2)
        #expect(clock.requestedSleeps[1] == seconds(0.25))
        clock.advance(by: seconds(0.25))
        await recorder.waitForShown(2)
        #expect(recorder.log.value.shown[1].at == seconds(5.375))
        player.stop()
    }
}
