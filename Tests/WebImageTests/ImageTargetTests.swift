import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A headless ``ImageTarget`` that records every image it is given, with the URL it was bound to
/// at that moment.
final class RecordingTarget: ImageTarget {
    struct Landing: Sendable {
        let image: Image?
        let cacheType: ImageCacheType
        /// The target's latest URL when the image arrived.
        let boundURL: URL?
    }

    let imageLoadState = ImageTargetLoadState()
    private let state = Mutex<[Landing]>([])

    var sets: [Landing] { state.withLock { $0 } }
    var image: Image? { sets.last?.image }

    func setImage(_ image: Image?, cacheType: ImageCacheType) {
        let set = Landing(image: image, cacheType: cacheType, boundURL: imageURL)
        state.withLock { $0.append(set) }
    }
}

/// A second target type, to see the default operation key follow the type name.
final class OtherTarget: ImageTarget {
    let imageLoadState = ImageTargetLoadState()
    func setImage(_ image: Image?, cacheType: ImageCacheType) {}
}

let placeholderImage = Image(bitmap: Bitmap(width: 2, height: 2, fill: RGBA(r: 9, g: 9, b: 9)))

@Suite("ImageTarget binding")
struct ImageTargetTests {
    @Test func placeholderThenImage() async throws {
        try await withManager { h in
            h.origin.setRoute("/a.png", .data(ManagerFixtures.png(12, 6), delay: .milliseconds(50)))
            let url = h.origin.url("/a.png")
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let operation = target.setImage(with: url, placeholder: placeholderImage, manager: h.manager,
                                            completed: recorder.completion)
            #expect(target.imageURL == url)
            #expect(target.imageURL(forKey: nil) == url)
            #expect(target.latestImageOperationKey == "RecordingTarget")
            #expect(target.imageLoadOperation(forKey: nil) === operation)
            #expect(target.sets.count == 1 && target.image === placeholderImage && target.sets[0].cacheType == .none)
            let finals = await recorder.waitForFinals()
            #expect(finals.count == 1)
            #expect(finals[0].image != nil && finals[0].image === target.image)
            #expect(target.sets.count == 2 && target.image?.width == 12 && target.sets[1].cacheType == .none)
            #expect(target.imageLoadOperation(forKey: nil) == nil)
            #expect(target.imageProgress().fractionCompleted == 1.0)
        }
    }

    @Test func delayPlaceholderShowsItOnlyOnFailure() async throws {
        try await withManager { h in
            h.origin.setRoute("/ok.png", .data(ManagerFixtures.png(5, 5)))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            target.setImage(with: h.origin.url("/ok.png"), placeholder: placeholderImage, options: .delayPlaceholder,
                            manager: h.manager, completed: recorder.completion)
            #expect(target.sets.isEmpty)
            _ = await recorder.waitForFinals()
            #expect(target.sets.map { $0.image?.width } == [5])

            let failing = RecordingTarget()
            let failed = ResultRecorder()
            failing.setImage(with: h.origin.url("/missing.png"), placeholder: placeholderImage,
                             options: .delayPlaceholder, manager: h.manager, completed: failed.completion)
            #expect(failing.sets.isEmpty)
            let finals = await failed.waitForFinals()
            #expect(finals.first?.error != nil)
            #expect(failing.sets.count == 1 && failing.image === placeholderImage)
        }
    }

    @Test func nilURLFailsAndKeepsThePlaceholder() async throws {
        try await withManager { h in
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            target.setImage(with: nil, placeholder: placeholderImage, manager: h.manager, completed: recorder.completion)
            // Known before the call returns: nothing to wait for.
            #expect(recorder.finals.count == 1)
            #expect(recorder.finals.first?.error?.code == .invalidURL && recorder.finals.first?.image == nil)
            #expect(target.sets.count == 1 && target.image === placeholderImage)
            #expect(target.imageURL == nil)
        }
    }

    @Test func aNewLoadCancelsThePreviousOneWithTheSameKey() async throws {
        try await withManager { h in
            h.origin.setRoute("/slow.png", .data(ManagerFixtures.png(7, 7), delay: .milliseconds(500)))
            h.origin.setRoute("/fast.png", .data(ManagerFixtures.png(9, 9)))
            let target = RecordingTarget()
            let first = ResultRecorder(), second = ResultRecorder()
            let op1 = target.setImage(with: h.origin.url("/slow.png"), manager: h.manager, completed: first.completion)
            let op2 = target.setImage(with: h.origin.url("/fast.png"), manager: h.manager, completed: second.completion)
            #expect(op1.isCancelled && !op2.isCancelled)
            #expect(await first.waitForFinals().first?.error?.code == .cancelled)
            #expect(await second.waitForFinals().first?.image?.width == 9)
            #expect(target.image?.width == 9)
            #expect(!target.sets.contains { $0.image?.width == 7 })
        }
    }

    @Test func avoidAutoCancelKeepsBothLoadsButOnlyTheLatestLands() async throws {
        try await withManager { h in
            h.origin.setRoute("/slow.png", .data(ManagerFixtures.png(7, 7), delay: .milliseconds(150)))
            h.origin.setRoute("/fast.png", .data(ManagerFixtures.png(9, 9)))
            let target = RecordingTarget()
            let first = ResultRecorder(), second = ResultRecorder()
            let op1 = target.setImage(with: h.origin.url("/slow.png"), options: .avoidAutoCancelImage,
                                      manager: h.manager, completed: first.completion)
            let op2 = target.setImage(with: h.origin.url("/fast.png"), options: .avoidAutoCancelImage,
                                      manager: h.manager, completed: second.completion)
            #expect(!op1.isCancelled && !op2.isCancelled)
            #expect(await first.waitForFinals().first?.image?.width == 7)
            #expect(await second.waitForFinals().first?.image?.width == 9)
            // The slow load is no longer the target's latest, so its image never reaches the target.
            #expect(target.image?.width == 9)
            #expect(!target.sets.contains { $0.image?.width == 7 })
        }
    }

    @Test func differentKeysLoadIndependently() async throws {
        try await withManager { h in
            h.origin.setRoute("/one.png", .data(ManagerFixtures.png(3, 3), delay: .milliseconds(50)))
            h.origin.setRoute("/two.png", .data(ManagerFixtures.png(4, 4), delay: .milliseconds(50)))
            let target = RecordingTarget()
            let first = ResultRecorder(), second = ResultRecorder()
            var keyA = WebImageContext(), keyB = WebImageContext()
            keyA.setImageOperationKey = "image"
            keyB.setImageOperationKey = "highlightedImage"
            let op1 = target.setImage(with: h.origin.url("/one.png"), context: keyA, manager: h.manager,
                                      completed: first.completion)
            target.setImage(with: h.origin.url("/two.png"), context: keyB, manager: h.manager,
                            completed: second.completion)
            #expect(!op1.isCancelled)
            #expect(target.imageURL(forKey: "image") == h.origin.url("/one.png"))
            #expect(target.imageURL(forKey: "highlightedImage") == h.origin.url("/two.png"))
            #expect(target.imageURL == h.origin.url("/two.png"))
            #expect(await first.waitForFinals().first?.image?.width == 3)
            #expect(await second.waitForFinals().first?.image?.width == 4)
        }
    }

    @Test func cancelCurrentImageLoadReportsCancelled() async throws {
        try await withManager { h in
            h.origin.setRoute("/slow.png", .data(ManagerFixtures.png(7, 7), delay: .milliseconds(500)))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let operation = target.setImage(with: h.origin.url("/slow.png"), placeholder: placeholderImage,
                                            manager: h.manager, completed: recorder.completion)
            target.cancelCurrentImageLoad()
            #expect(operation.isCancelled)
            #expect(target.imageLoadOperation(forKey: nil) == nil)
            let finals = await recorder.waitForFinals()
            #expect(finals.count == 1 && finals.first?.error?.code == .cancelled)
            #expect(target.image === placeholderImage)
            #expect(await waitUntil { !h.manager.isRunning })
        }
    }

    @Test func aMemoryHitIsSetBeforeTheCallReturns() async throws {
        try await withManager { h in
            let url = h.origin.url("/cached.png")
            let cached = Image(bitmap: TestBitmaps.gradient(width: 6, height: 3))
            h.cache.storeImageToMemory(cached, forKey: url.absoluteString)
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            target.setImage(with: url, placeholder: placeholderImage, manager: h.manager, completed: recorder.completion)
            // No placeholder flash: the cached image is the only thing set, and the completion already ran.
            #expect(target.sets.count == 1 && target.image === cached && target.sets[0].cacheType == .memory)
            #expect(recorder.finals.first?.cacheType == .memory)
            #expect(target.imageProgress().fractionCompleted == 1.0)
            #expect(h.origin.stats.requests.isEmpty)
        }
    }

    @Test func avoidAutoSetImageLeavesTheImageToTheCompletion() async throws {
        try await withManager { h in
            h.origin.setRoute("/a.png", .data(ManagerFixtures.png(5, 5)))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            target.setImage(with: h.origin.url("/a.png"), placeholder: placeholderImage, options: .avoidAutoSetImage,
                            manager: h.manager, completed: recorder.completion)
            #expect(await recorder.waitForFinals().first?.image?.width == 5)
            #expect(target.sets.count == 1 && target.image === placeholderImage)
        }
    }

    @Test func progressReachesOneAndTheProgressBlockRuns() async throws {
        try await withManager { h in
            let body = ManagerFixtures.png(64, 64, alpha: true)
            h.origin.setRoute("/big.png", .data(body, mode: .trickle(chunk: body.count / 4 + 1, interval: .milliseconds(10))))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let received = Mutex<[Int64]>([])
            target.setImage(with: h.origin.url("/big.png"), manager: h.manager,
                            progress: { got, _, _ in received.withLock { $0.append(got) } },
                            completed: recorder.completion)
            _ = await recorder.waitForFinals()
            #expect(received.withLock { $0.last } == Int64(body.count))
            #expect(target.imageProgress() == ImageTargetProgress(completedUnitCount: Int64(body.count),
                                                                  totalUnitCount: Int64(body.count)))
            #expect(target.imageProgress().fractionCompleted == 1.0)
        }
    }

    @Test func theOperationKeyReachesTheOptionsProcessor() async throws {
        try await withManager { h in
            let seen = Mutex<[String?]>([])
            h.manager.optionsProcessor = ImageManagerOptionsProcessor { _, options, context in
                seen.withLock { $0.append(context.setImageOperationKey) }
                return (options, context)
            }
            h.origin.setRoute("/a.png", .data(ManagerFixtures.png(5, 5)))
            let recorder = ResultRecorder()
            OtherTarget().setImage(with: h.origin.url("/a.png"), manager: h.manager, completed: recorder.completion)
            _ = await recorder.waitForFinals()
            #expect(seen.withLock { $0 } == ["OtherTarget"])
        }
    }

    @Test func aReleasedTargetStillGetsItsCompletionAndIsFreed() async throws {
        try await withManager { h in
            h.origin.setRoute("/a.png", .data(ManagerFixtures.png(5, 5), delay: .milliseconds(50)))
            let recorder = ResultRecorder()
            weak var released: RecordingTarget?
            do {
                let target = RecordingTarget()
                released = target
                target.setImage(with: h.origin.url("/a.png"), manager: h.manager, completed: recorder.completion)
            }
            #expect(released == nil)
            #expect(await recorder.waitForFinals().first?.image?.width == 5)
        }
    }

    @Test func progressiveLoadsShowPartialImages() async throws {
        try await withManager { h in
            let body = ManagerFixtures.png(96, 96)
            h.origin.setRoute("/p.png", .data(body, mode: .trickle(chunk: body.count / 6 + 1, interval: .milliseconds(20))))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            target.setImage(with: h.origin.url("/p.png"), options: .progressiveLoad, manager: h.manager,
                            completed: recorder.completion)
            _ = await recorder.waitForFinals()
            let images = target.sets.compactMap(\.image)
            #expect(images.last?.isPartial == false && images.last?.width == 96)
            #expect(images.dropLast().allSatisfy { $0.isPartial })
            // Without avoidAutoSetImage the completion sees only the final image.
            #expect(recorder.results.count == 1)
        }
    }
}
