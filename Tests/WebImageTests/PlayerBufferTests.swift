import Testing
@testable import WebImageCodecs

@Suite("AnimatedImagePlayer buffer")
struct PlayerBufferTests {
    @Test func twoPlayersOfOneImageDecodeEachFrameOnce() async throws {
        let decoder = SolidFrameDecoder()
        let image = try Image.lazyAnimation(durations: Array(repeating: 0.125, count: 6), loopCount: 1, decoder: decoder)
        let animation = try #require(image.animation)
        let firstClock = TestClock(.manual), secondClock = TestClock(.manual)
        let first = AnimatedImagePlayer(image: image, clock: firstClock)
        let second = AnimatedImagePlayer(image: image, clock: secondClock)
        first.maxBufferSize = 6 * image.bitmap.byteCount
        second.maxBufferSize = 6 * image.bitmap.byteCount
        let firstRecorder = PlayerRecorder(first, clock: firstClock)
        let secondRecorder = PlayerRecorder(second, clock: secondClock)

        // Both play at once: the second waits on its first frame while the first plays through.
        second.start()
        await secondRecorder.waitForShown(1)
        first.start()
        await firstClock.wakeSleeps(1...6)
        await first.waitUntilEnded()
        await secondClock.wakeSleeps(1...6)
        await second.waitUntilEnded()

        #expect(firstRecorder.shownFrames == [0, 1, 2, 3, 4, 5])
        #expect(secondRecorder.shownFrames == [0, 1, 2, 3, 4, 5])
        #expect(animation.decodeCount == 5)
        #expect(decoder.decodedFrames == [0, 1, 2, 3, 4, 5])
    }

    @Test func heldBytesStayWithinMaxBufferSize() async throws {
        let decoder = SolidFrameDecoder()
        let image = try Image.lazyAnimation(durations: Array(repeating: 0.125, count: 20), loopCount: 1, decoder: decoder)
        let animation = try #require(image.animation)
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: image, clock: clock)
        let limit = 3 * image.bitmap.byteCount
        player.maxBufferSize = limit
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.wakeSleeps(1...20)
        await player.waitUntilEnded()

        #expect(recorder.shownFrames == Array(0..<20))
        #expect(recorder.log.value.peakHeldBytes <= limit)
        #expect(recorder.log.value.peakHeldBytes >= 2 * image.bitmap.byteCount)
        // Each frame decoded once, in order: the window slid along without going back.
        #expect(animation.decodeCount == 19)
        #expect(decoder.decodedFrames == Array(0..<20))
        // Ended: the buffer space is given back.
        #expect(animation.bufferLimit == 0 && animation.heldBytes == 0)
    }

    @Test func aBufferSmallerThanAFrameStillPlaysEveryFrameDecodingEachOnce() async throws {
        let decoder = SolidFrameDecoder()
        let image = try Image.lazyAnimation(durations: Array(repeating: 0.125, count: 8), loopCount: 1, decoder: decoder)
        let animation = try #require(image.animation)
        let clock = TestClock(.manual)
        let player = AnimatedImagePlayer(image: image, clock: clock)
        player.maxBufferSize = 1
        let recorder = PlayerRecorder(player, clock: clock)
        player.start()
        await clock.wakeSleeps(1...8)
        await player.waitUntilEnded()

        #expect(recorder.shownFrames == Array(0..<8))
        #expect(recorder.log.value.peakHeldBytes == 0)
        #expect(animation.decodeCount == 7)
        #expect(player.droppedFrameCount == 0)
    }

    @Test func automaticBudgetIsAFifthOfTheMemoryCappedAtTheFrames() throws {
        let image = try Image.lazyAnimation(durations: Array(repeating: 0.1, count: 100))
        let source = PlaybackSource(image: image)
        let frameBytes = image.bitmap.byteCount
        let small = PlayerBufferBudget(maxBufferSize: 0, source: source, availableMemory: { UInt64(50 * frameBytes) })
        #expect(small.requestBytes == 10 * frameBytes && small.windowFrames == 10)
        let large = PlayerBufferBudget(maxBufferSize: 0, source: source, availableMemory: { 1 << 40 })
        #expect(large.requestBytes == 99 * frameBytes && large.windowFrames == 100)
        let tiny = PlayerBufferBudget(maxBufferSize: 1, source: source)
        #expect(tiny.requestBytes == 1 && tiny.windowFrames == 2)
        let held = PlayerBufferBudget(maxBufferSize: 0, source: PlaybackSource(image: .heldAnimation(durations: [0.1, 0.1])))
        #expect(held.requestBytes == 0 && held.windowFrames == 2)
    }
}
