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
            origin.setRoute("/p.img", .data(picture, mode: .trickle(chunk: 512, interval: .milliseconds(5))))
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/p.img"), options: [], context: .testing(TestImageCoder()),
                                    progress: recorder.progressHandler, completion: recorder.completion)
            #expect(await waitUntil { !recorder.finals.isEmpty })
            let steps = recorder.progress
            let total = Int64(picture.count)
            #expect(steps.first.map { [$0.0, $0.1] } == [0, -1])
            #expect(steps.dropFirst().first.map { [$0.0, $0.1] } == [0, total])
            #expect(steps.last.map { [$0.0, $0.1] } == [total, total])
            #expect(steps.count > 3)
            let received = steps.map(\.0)
            #expect(zip(received, received.dropFirst()).allSatisfy { $0 <= $1 })
            #expect(steps.dropFirst().allSatisfy { $0.1 == total })
        }
    }

    @Test func minimumProgressIntervalThrottlesCallbacks() async throws {
        var config = DownloaderConfig()
        config.minimumProgressInterval = 0.51
        try await withOriginAndDownloader(config) { origin, downloader in
            origin.setRoute("/t.img", .data(picture, mode: .trickle(chunk: 256, interval: .milliseconds(2))))
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/t.img"), options: [], context: .testing(TestImageCoder()),
                                    progress: recorder.progressHandler, completion: recorder.completion)
            #expect(await waitUntil { !recorder.finals.isEmpty })
            let steps = recorder.progress
            #expect(steps.count >= 3 && steps.count <= 4)
            #expect(steps.last?.0 == Int64(picture.count))
        }
    }

    @Test func progressiveLoadDeliversPartialImagesBeforeTheFinalOne() async throws {
        try await withOriginAndDownloader { origin, downloader in
            // The body pauses at its middle until a partial image has been seen.
            let gate = TestGate()
            origin.setRoute("/prog.img", .data(picture, mode: .gated(picture.count / 2, gate)))
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/prog.img"), options: .progressiveLoad,
                                    context: .testing(TestImageCoder()), progress: nil, completion: recorder.completion)
            #expect(await waitUntil { !recorder.partials.isEmpty })
            #expect(recorder.finals.isEmpty)
            gate.open()
            #expect(await waitUntil { !recorder.finals.isEmpty })
            try await Task.sleep(for: .milliseconds(200))
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
            origin.setRoute("/enc.img", .data(encoded, mode: .trickle(chunk: 1024, interval: .milliseconds(20))))
            var context = WebImageContext.testing(TestImageCoder())
            context.decryptor = .base64
            let recorder = LoadRecorder()
            downloader.requestImage(with: origin.url("/enc.img"), options: .progressiveLoad, context: context,
                                    progress: nil, completion: recorder.completion)
            #expect(await waitUntil { !recorder.finals.isEmpty })
            #expect(recorder.partials.isEmpty)
            #expect(recorder.finals.first?.image != nil)

            origin.setRoute("/cancel.img", .data(picture, mode: .trickle(chunk: 512, interval: .milliseconds(30))))
            let cancelled = LoadRecorder()
            let token = downloader.requestImage(with: origin.url("/cancel.img"), options: .progressiveLoad,
                                                context: .testing(TestImageCoder()), progress: nil,
                                                completion: cancelled.completion)
            // Cancel once a partial image (or, on a starved machine, the result) has arrived.
            _ = await waitUntil { !cancelled.partials.isEmpty || !cancelled.finals.isEmpty }
            let finishedFirst = !cancelled.finals.isEmpty
            token?.cancel()
            let partialsAtCancel = cancelled.partials.count
            #expect(await waitUntil { !cancelled.finals.isEmpty })
            try await Task.sleep(for: .milliseconds(300))
            #expect(cancelled.partials.count == partialsAtCancel, "no partial image after cancel")
            if !finishedFirst { #expect(cancelled.results.last?.error?.code == .cancelled) }
            #expect(cancelled.finals.count == 1)
        }
    }
}
