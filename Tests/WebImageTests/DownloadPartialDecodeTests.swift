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
        record.withLock { record in
            record.active += 1
            record.maxActive = max(record.maxActive, record.active)
            record.updateLengths.append(length)
            let hold = holdFirst && record.updateLengths.count == 1
            if hold { record.holding = true }
            return hold
        }
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
        // 16 KB in 80-byte pieces every 5 ms: the body takes about a second to arrive.
        let picture = TestImageCoder.encode(width: 64, height: 64)
        let coder = CountingProgressiveCoder(holdFirst: true)
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/trickle.img", .data(picture, mode: .trickle(chunk: 80, interval: .milliseconds(5))))
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/trickle.img"), options: .progressiveLoad,
                                    context: WebImageContext(imageCoder: coder), progress: recorder.progressHandler,
                                    completion: recorder.completion)
            defer { coder.releaseHeldDecode() } // never leave a decode thread parked if the test stops early
            // The first partial decode is held; the body keeps arriving meanwhile.
            #expect(await waitUntil { coder.record.withLock { $0.holding } })
            let heldAt = try #require(coder.record.withLock { $0.updateLengths.first })
            #expect(await waitUntil { (recorder.progress.last?.0 ?? 0) >= Int64(heldAt + 2_000) })
            // A starved test thread may see the whole body arrive first; then no partial follows.
            let bodyEndedWhileHeld = !recorder.finals.isEmpty
            coder.releaseHeldDecode()
            #expect(await waitUntil { !recorder.finals.isEmpty })

            let record = coder.record.withLock { $0 }
            #expect(record.maxActive == 1)
            if !bodyEndedWhileHeld {
                // The decode after the held one got the newest body, not the next chunk in line:
                // the 25-odd chunks that arrived meanwhile collapsed into one body.
                #expect(record.updateLengths.count >= 2)
                #expect(record.updateLengths.dropFirst().first.map { $0 >= heldAt + 2_000 } == true)
            }
            #expect(zip(record.updateLengths, record.updateLengths.dropFirst()).allSatisfy { $0 < $1 })
            #expect(recorder.finals.first?.image?.pixelSize == PixelSize(width: 64, height: 64))
            #expect(recorder.results.last?.isFinished == true)
            #expect(!recorder.partials.isEmpty)
        }
    }
}
