import Testing
import WebImage

@Suite("AnimatedImagePlayer dropped frames")
struct PlayerDroppedFrameTests {
    let durations = Array(repeating: 0.125, count: 10)

    @Test func aClockJumpShowsTheFrameDueNowAndCountsTheSkipped() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: .heldAnimation(durations: durations, loopCount: 1), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.waitForSleeps(1)
        // 0.5 s is the end of frame 3 and the start of frame 4: frames 1, 2 and 3 are over unseen.
        clock.advance(by: seconds(0.5))
        await recorder.waitForShown(2)
        #expect(recorder.log.value.shown[1] == .init(index: 4, at: seconds(0.5), pixelsShow: 4))
        #expect(player.droppedFrameCount == 3)

        await clock.wakeSleeps(2...7)
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [0, 4, 5, 6, 7, 8, 9])
        #expect(player.shownFrameCount == 7 && player.droppedFrameCount == 3)
        #expect(recorder.loops == [1])
    }

    @Test func aJumpPastTheEndRestsOnTheLastFrame() async throws {
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: .heldAnimation(durations: durations, loopCount: 2), clock: clock)
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.waitForSleeps(1)
        clock.advance(by: seconds(60))
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [0, 9])
        #expect(recorder.loops == [1, 2])
        // Every frame of both loops but the first and the last went by unseen.
        #expect(player.droppedFrameCount == 18)
        #expect(player.currentLoopCount == 2)
    }

    @Test func slowDecodingSkipsToTheFrameDueNowInsteadOfShowingLateFrames() async throws {
        let clock = TestClock(.manual)
        let decoder = SolidFrameDecoder(holdingFrom: 2)
        let image = try Image.lazyAnimation(durations: durations, loopCount: 1, decoder: decoder)
        let player = AnimatedImagePlayer(image: image, clock: clock)
        // Two frames ahead: frame 2 is wanted (and held by the decoder) while frame 1 shows.
        player.maxBufferSize = 2 * image.bitmap.byteCount
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.wakeSleeps(1...1)
        await recorder.waitForShown(2)
        await clock.waitForSleeps(2)
        // Frame 2 is due at 0.25 s but cannot be decoded; time runs on to 0.75 s (frame 6).
        clock.advance(by: seconds(0.375))
        clock.advance(by: seconds(0.25))
        decoder.releaseHeldFrames()
        await recorder.waitForShown(3)
        #expect(recorder.log.value.shown[2] == .init(index: 6, at: seconds(0.75), pixelsShow: 6))
        #expect(player.droppedFrameCount == 4)

        await clock.wakeSleeps(3...6)
        await player.waitUntilEnded()
        #expect(recorder.shownFrames == [0, 1, 6, 7, 8, 9])
        #expect(player.droppedFrameCount == 4)
        // Shown frames keep their due instants: no late burst after the decoder caught up.
        #expect(recorder.log.value.shown.map(\.at) == [0, 0.125, 0.75, 0.875, 1, 1.125].map(seconds))
    }
}
