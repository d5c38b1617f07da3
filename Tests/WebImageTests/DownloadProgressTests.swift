import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Download progress and progressive images")
struct DownloadProgressTests {
    let picture = TestImageCoder.encode(width: 32, height: 32)

    @Test func progressStartsUnknownThenRisesToExpected() async throws {
        try await withOriginAndDownloader { origin, downloader in
            // Eight pieces, each sent once the client has reported the one before.
            let pieces = AcknowledgedSteps(splitting: picture.count, into: 8)
            origin.setRoute("/p.img", .data(picture, mode: pieces.mode))
            let recorder = LoadRecorder()
            let record = recorder.progressHandler
            downloader.requestImage(with: origin.url("/p.img"), options: [], context: .testing(TestImageCoder()),
                                    progress: { received, expected, url in
                                        record(received, expected, url)
                                        pieces.acknowledge(received)
                                    }, completion: recorder.completion)
            await recorder.waitForFinal()
            let steps = recorder.progress
            let total = Int64(picture.count)
            #expect(steps.first.map { [$0.0, $0.1] } == [0, -1])
            #expect(steps.dropFirst().first.map { [$0.0, $0.1] } == [0, total])
            #expect(steps.last.map { [$0.0, $0.1] } == [total, total])
            // Every piece was reported: the pauses, then the end.
            let received = steps.map(\.0)
            #expect(pieces.steps.allSatisfy { step in received.contains(Int64(step.through)) })
            #expect(steps.count >= pieces.steps.count + 3)
            #expect(zip(received, received.dropFirst()).allSatisfy { $0 <= $1 })
            #expect(steps.dropFirst().allSatisfy { $0.1 == total })
        }
    }

    @Test func minimumProgressIntervalThrottlesCallbacks() async throws {
        var config = DownloaderConfig()
        config.minimumProgressInterval = 0.51
        try await withOriginAndDownloader(config) { origin, downloader in
            // Sixty percent, then (once the client has reported passing 51 %) the rest; whatever
            // the reads in between, the throttle lets exactly one report through before the end.
            let threshold = Int64(Double(picture.count) * 0.51) + 1
            let pause = AcknowledgedSteps(at: [picture.count * 6 / 10])
            origin.setRoute("/t.img", .data(picture, mode: pause.mode))
            let recorder = LoadRecorder()
            let record = recorder.progressHandler
            downloader.requestImage(with: origin.url("/t.img"), options: [], context: .testing(TestImageCoder()),
                                    progress: { received, expected, url in
                                        record(received, expected, url)
                                        if received >= threshold { pause.openAll() }
                                    }, completion: recorder.completion)
            await recorder.waitForFinal()
            let steps = recorder.progress
            #expect(steps.count == 4, "\(steps)")
            #expect(steps.last?.0 == Int64(picture.count))
            #expect(steps.dropFirst(2).first.map { $0.0 >= threshold && $0.0 < Int64(picture.count) } == true)
        }
    }

    @Test func progressiveLoadDeliversPartialImagesBeforeTheFinalOne() async throws {
        try await withOriginAndDownloader { origin, downloader in
            // The body pauses at its middle until a partial image has been seen.
            let gate = TestGate()
            origin.setRoute("/prog.img", .data(picture, mode: .gated(picture.count / 2, gate)))
            let recorder = LoadRecorder()
            let released = TestGate()
            let completion = recorder.completion
            downloader.requestImage(with: origin.url("/prog.img"), options: .progressiveLoad,
                                    context: .testing(TestImageCoder()), progress: nil,
                                    completion: { [probe = ReleaseProbe.reporting(to: released)] result in
                                        withExtendedLifetime(probe) { completion(result) }
                                    })
            await recorder.waitForPartials()
            #expect(recorder.finals.isEmpty)
            gate.open()
            await recorder.waitForFinal()
            // The downloader has let go of the caller's completion: no callback can still come.
            await released.wait("the downloader to release the completion")
            let results = recorder.results
            #expect(results.last?.isFinished == true)
            #expect(results.filter(\.isFinished).count == 1)
            let partials = recorder.partials
            #expect(!partials.isEmpty)
            #expect(partials.allSatisfy { $0.image?.isPartial == true && $0.data == nil && $0.error == nil })
            #expect(results.last?.image?.isPartial == false)
        }
    }

    @Test func noPartialImagesWithADecryptorOrAfterCancel() async throws {
        try await withOriginAndDownloader { origin, downloader in
            let encoded = Array(Data(picture).base64EncodedString().utf8)
            // Pieces the client sees one by one: each would be a chance for a partial image.
            let pieces = AcknowledgedSteps(splitting: encoded.count, into: 6)
            origin.setRoute("/enc.img", .data(encoded, mode: pieces.mode))
            var context = WebImageContext.testing(TestImageCoder())
            context.decryptor = .base64
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/enc.img"), options: .progressiveLoad, context: context,
                                    progress: { received, _, _ in pieces.acknowledge(received) },
                                    completion: recorder.completion)
            await recorder.waitForFinal()
            #expect(recorder.partials.isEmpty)
            #expect(recorder.finals.first?.image != nil)

            // The body stops at its middle for good: the partial image of that half is all there
            // is until the cancel, so the cancel always comes before the result.
            let never = TestGate()
            origin.setRoute("/cancel.img", .data(picture, mode: .gated(picture.count / 2, never)))
            let cancelled = LoadRecorder()
            let released = TestGate()
            let completion = cancelled.completion
            let token = downloader.requestImage(with: origin.url("/cancel.img"), options: .progressiveLoad,
                                                context: .testing(TestImageCoder()), progress: nil,
                                                completion: { [probe = ReleaseProbe.reporting(to: released)] result in
                                                    withExtendedLifetime(probe) { completion(result) }
                                                })
            await cancelled.waitForPartials()
            token?.cancel()
            await cancelled.waitForFinal()
            // Everything the download queued for this caller has run and been released. The
            // cancellation was queued when `cancel()` ran, so a partial image made after it would
            // come after it: the cancellation is the last thing the caller heard.
            await released.wait("the downloader to release the completion")
            #expect(cancelled.results.last?.error?.code == .cancelled, "no partial image after cancel")
            #expect(cancelled.finals.count == 1)
            #expect(cancelled.results.dropLast().allSatisfy { !$0.isFinished && $0.image?.isPartial == true })
        }
    }
}
