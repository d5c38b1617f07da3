import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A progressive coder (the TESTIMG format) whose incremental decoder records every update: how
/// many run at once and how many bytes each saw. The first `currentImage()` can be held until
/// the test releases it, so the body keeps arriving while one partial decode is in flight.
final class CountingProgressiveCoder: ProgressiveImageCoding {
    struct Record {
        var active = 0
        var maxActive = 0
        var updateLengths: [Int] = []
        var holding = false
    }

    let base = TestImageCoder()
    let record = Mutex(Record())
    /// Opens when the first partial decode is held.
    let held = TestGate()
    /// Counts partial decodes as they start.
    let updates = Counter()
    private let release = DispatchSemaphore(value: 0)
    private let holdFirst: Bool

    init(holdFirst: Bool) { self.holdFirst = holdFirst }

    /// Lets the held first partial decode finish.
    func releaseHeldDecode() { release.signal() }

    func canDecode(_ data: Data) -> Bool { base.canDecode(data) }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image { try base.decode(data, options: options) }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError(.encodingFailed, "CountingProgressiveCoder does not encode.")
    }
    func canDecodeIncrementally(_ data: Data) -> Bool { base.canDecodeIncrementally(data) }

    func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoding {
        Decoder(owner: self, inner: base.makeIncrementalDecoder(options: options))
    }

    /// Called at the start of a partial decode; true when this one must wait for the release.
    fileprivate func enter(length: Int) -> Bool {
        let hold = record.withLock { record in
            record.active += 1
            record.maxActive = max(record.maxActive, record.active)
            record.updateLengths.append(length)
            let hold = holdFirst && record.updateLengths.count == 1
            if hold { record.holding = true }
            return hold
        }
        if hold { held.open() }
        updates.increment()
        return hold
    }

    fileprivate func leave(held: Bool) {
        if held { release.wait() }
        record.withLock { record in
            record.active -= 1
            record.holding = false
        }
    }

    private final class Decoder: IncrementalImageDecoding {
        let owner: CountingProgressiveCoder
        let inner: any IncrementalImageDecoding
        var held = false

        init(owner: CountingProgressiveCoder, inner: any IncrementalImageDecoding) {
            self.owner = owner
            self.inner = inner
        }

        func update(_ data: Data, finished: Bool) {
            held = owner.enter(length: data.count)
            inner.update(data, finished: finished)
        }

        func currentImage() throws -> Image? {
            defer { owner.leave(held: held) }
            return try inner.currentImage()
        }
    }
}

@Suite("Download progressive images: one partial decode at a time")
struct DownloadPartialDecodeTests {
    @Test func atMostOnePartialDecodeRunsAndTheNewestBodyIsDecodedNext() async throws {
        // 16 KB: 80-byte pieces up to 6,000 bytes, each sent once the client has reported the one
        // before, then a pause until the test lets the rest go.
        let picture = TestImageCoder.encode(width: 64, height: 64)
        let pauseAt = 6_000
        let coder = CountingProgressiveCoder(holdFirst: true)
        try await withOriginAndDownloader { origin, downloader in
            let pieces = AcknowledgedSteps(at: Array(stride(from: 80, to: pauseAt, by: 80)))
            let rest = TestGate()
            origin.setRoute("/trickle.img", .data(picture, mode: .stepped(pieces.steps + [BodyStep(through: pauseAt, gate: rest)])))
            let recorder = LoadRecorder()
            let record = recorder.progressHandler
            downloader.requestImage(with: origin.url("/trickle.img"), options: .progressiveLoad,
                                    context: WebImageContext(imageCoder: coder),
                                    progress: { received, expected, url in
                                        record(received, expected, url)
                                        pieces.acknowledge(received)
                                    }, completion: recorder.completion)
            defer {
                // Never leave a decode thread parked or the origin waiting if the test stops early.
                coder.releaseHeldDecode()
                rest.open()
            }
            // The first partial decode is held; the body keeps arriving meanwhile, piece by piece.
            await coder.held.wait("the first partial decode to be held")
            let heldAt = try #require(coder.record.withLock { $0.updateLengths.first })
            #expect(heldAt < 4_000)
            await recorder.waitForProgress(Int64(pauseAt))
            #expect(recorder.finals.isEmpty)
            #expect(coder.updates.value == 1, "no second partial decode while the first runs")
            coder.releaseHeldDecode()
            await coder.updates.wait(for: 2, "the next partial decode")
            rest.open()
            await recorder.waitForFinal()

            let decodes = coder.record.withLock { $0 }
            #expect(decodes.maxActive == 1)
            // The decode after the held one got the newest body, not the next piece in line: the
            // seventy-odd pieces that arrived meanwhile collapsed into one body.
            #expect(decodes.updateLengths.count >= 2)
            #expect(decodes.updateLengths.dropFirst().first.map { $0 >= heldAt + 2_000 } == true)
            #expect(zip(decodes.updateLengths, decodes.updateLengths.dropFirst()).allSatisfy { $0 < $1 })
            #expect(recorder.finals.first?.image?.pixelSize == PixelSize(width: 64, height: 64))
            #expect(recorder.results.last?.isFinished == true)
            #expect(!recorder.partials.isEmpty)
        }
    }
}
