import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A headless ``ImageTarget`` that records every image it is given, with the URL it was bound to
/// at that moment; tests can await what it shows.
final class RecordingTarget: ImageTarget {
    struct Landing: Sendable {
        let image: Image?
        let cacheType: ImageCacheType
        /// The target's latest URL when the image arrived.
        let boundURL: URL?
    }

    let imageLoadState = ImageTargetLoadState()
    private let log = Watched([Landing]())

    var sets: [Landing] { log.value }
    var image: Image? { sets.last?.image }

    func setImage(_ image: Image?, cacheType: ImageCacheType) {
        let set = Landing(image: image, cacheType: cacheType, boundURL: imageURL)
        log.update { $0.append(set) }
    }

    /// Waits until the target shows an image `width` pixels wide.
    @discardableResult
    func waitForImage(width: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("an image \(width) pixels wide", sourceLocation: sourceLocation) { $0.last?.image?.width == width }
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
        try await withScriptedManager { h in
            let url = h.serve("/a.png", LoadScript.png(12, 6).holding(.started))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let operation = target.setImage(with: url, placeholder: placeholderImage, manager: h.manager,
                                            completed: recorder.completion)
            #expect(target.imageURL == url)
            #expect(target.imageURL(forKey: nil) == url)
            #expect(target.latestImageOperationKey == "RecordingTarget")
            #expect(target.imageLoadOperation(forKey: nil) === operation)
            #expect(target.sets.count == 1 && target.image === placeholderImage && target.sets[0].cacheType == .none)
            await h.loader.waitUntilHeld(url)
            #expect(target.imageLoadOperation(forKey: nil) === operation)
            h.loader.release(url)
            await recorder.waitForFinals()
            let finals = await recorder.settled(operation)
            #expect(finals.count == 1)
            #expect(finals[0].image != nil && finals[0].image === target.image)
            #expect(target.sets.count == 2 && target.image?.width == 12 && target.sets[1].cacheType == .none)
            #expect(target.imageLoadOperation(forKey: nil) == nil)
            #expect(target.imageProgress().fractionCompleted == 1.0)
        }
    }

    @Test func delayPlaceholderShowsItOnlyOnFailure() async throws {
        try await withScriptedManager { h in
            let ok = h.serve("/ok.png", LoadScript.png(5, 5).holding(.started))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let operation = target.setImage(with: ok, placeholder: placeholderImage, options: .delayPlaceholder,
                                            manager: h.manager, completed: recorder.completion)
            #expect(target.sets.isEmpty)
            await h.loader.waitUntilHeld(ok)
            #expect(target.sets.isEmpty)
            h.loader.release(ok)
            await recorder.waitForFinals()
            _ = await recorder.settled(operation)
            #expect(target.sets.map { $0.image?.width } == [5])

            let missing = h.serve("/missing.png", LoadScript.status(404).holding(.started))
            let failing = RecordingTarget()
            let failed = ResultRecorder()
            let failure = failing.setImage(with: missing, placeholder: placeholderImage,
                                           options: .delayPlaceholder, manager: h.manager, completed: failed.completion)
            #expect(failing.sets.isEmpty)
            await h.loader.waitUntilHeld(missing)
            h.loader.release(missing)
            await failed.waitForFinals()
            let finals = await failed.settled(failure)
            #expect(finals.first?.error != nil)
            #expect(failing.sets.count == 1 && failing.image === placeholderImage)
        }
    }

    @Test func nilURLFailsAndKeepsThePlaceholder() async throws {
        try await withScriptedManager { h in
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
        try await withScriptedManager { h in
            let slow = h.serve("/slow.png", LoadScript.png(7, 7).holding(.started))
            let fast = h.serve("/fast.png", .png(9, 9))
            let target = RecordingTarget()
            let first = ResultRecorder(), second = ResultRecorder()
            let op1 = target.setImage(with: slow, manager: h.manager, completed: first.completion)
            let op2 = target.setImage(with: fast, manager: h.manager, completed: second.completion)
            #expect(op1.isCancelled && !op2.isCancelled)
            #expect(await first.waitForFinals().first?.error?.code == .cancelled)
            #expect(await second.waitForFinals().first?.image?.width == 9)
            #expect(await first.settled(op1).count == 1)
            #expect(await second.settled(op2).count == 1)
            #expect(target.image?.width == 9)
            #expect(!target.sets.contains { $0.image?.width == 7 })
            h.drain()
            // Whether or not it had reached the loader, the slow load is over for good.
            #expect(h.loader.release(slow) == 0)
        }
    }

    @Test func avoidAutoCancelKeepsBothLoadsButOnlyTheLatestLands() async throws {
        try await withScriptedManager { h in
            let slow = h.serve("/slow.png", LoadScript.png(7, 7).holding(.started))
            let fast = h.serve("/fast.png", .png(9, 9))
            let target = RecordingTarget()
            let first = ResultRecorder(), second = ResultRecorder()
            let op1 = target.setImage(with: slow, options: .avoidAutoCancelImage,
                                      manager: h.manager, completed: first.completion)
            let op2 = target.setImage(with: fast, options: .avoidAutoCancelImage,
                                      manager: h.manager, completed: second.completion)
            #expect(!op1.isCancelled && !op2.isCancelled)
            // The fast load lands first; then the slow one finishes.
            #expect(await second.waitForFinals().first?.image?.width == 9)
            await h.loader.waitUntilHeld(slow)
            h.loader.release(slow)
            #expect(await first.waitForFinals().first?.image?.width == 7)
            #expect(await first.settled(op1).count == 1)
            #expect(await second.settled(op2).count == 1)
            // The slow load is no longer the target's latest, so its image never reaches the target.
            #expect(target.image?.width == 9)
            #expect(!target.sets.contains { $0.image?.width == 7 })
        }
    }

    @Test func differentKeysLoadIndependently() async throws {
        try await withScriptedManager { h in
            let one = h.serve("/one.png", LoadScript.png(3, 3).holding(.started))
            let two = h.serve("/two.png", LoadScript.png(4, 4).holding(.started))
            let target = RecordingTarget()
            let first = ResultRecorder(), second = ResultRecorder()
            var keyA = WebImageContext(), keyB = WebImageContext()
            keyA.setImageOperationKey = "image"
            keyB.setImageOperationKey = "highlightedImage"
            let op1 = target.setImage(with: one, context: keyA, manager: h.manager, completed: first.completion)
            target.setImage(with: two, context: keyB, manager: h.manager, completed: second.completion)
            #expect(!op1.isCancelled)
            #expect(target.imageURL(forKey: "image") == one)
            #expect(target.imageURL(forKey: "highlightedImage") == two)
            #expect(target.imageURL == two)
            await h.loader.waitForHeld(2)
            #expect(h.loader.requests.map(\.setImageOperationKey).sorted { ($0 ?? "") < ($1 ?? "") }
                    == ["highlightedImage", "image"])
            h.loader.releaseAll()
            #expect(await first.waitForFinals().first?.image?.width == 3)
            #expect(await second.waitForFinals().first?.image?.width == 4)
        }
    }

    @Test func cancelCurrentImageLoadReportsCancelled() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/slow.png", LoadScript.png(7, 7).holding(.started))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let operation = target.setImage(with: url, placeholder: placeholderImage,
                                            manager: h.manager, completed: recorder.completion)
            target.cancelCurrentImageLoad()
            #expect(operation.isCancelled)
            #expect(target.imageLoadOperation(forKey: nil) == nil)
            #expect(!h.manager.isRunning)
            await recorder.waitForFinals()
            let finals = await recorder.settled(operation)
            #expect(finals.count == 1 && finals.first?.error?.code == .cancelled)
            #expect(target.image === placeholderImage)
        }
    }

    @Test func aMemoryHitIsSetBeforeTheCallReturns() async throws {
        try await withScriptedManager { h in
            let url = h.url("/cached.png")
            let cached = Image(bitmap: TestBitmaps.gradient(width: 6, height: 3))
            h.cache.storeImageToMemory(cached, forKey: url.absoluteString)
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            target.setImage(with: url, placeholder: placeholderImage, manager: h.manager, completed: recorder.completion)
            // No placeholder flash: the cached image is the only thing set, and the completion already ran.
            #expect(target.sets.count == 1 && target.image === cached && target.sets[0].cacheType == .memory)
            #expect(recorder.finals.first?.cacheType == .memory)
            #expect(target.imageProgress().fractionCompleted == 1.0)
            #expect(h.loader.requestCount == 0)
        }
    }

    @Test func avoidAutoSetImageLeavesTheImageToTheCompletion() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.png", .png(5, 5))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let operation = target.setImage(with: url, placeholder: placeholderImage, options: .avoidAutoSetImage,
                                            manager: h.manager, completed: recorder.completion)
            #expect(await recorder.waitForFinals().first?.image?.width == 5)
            #expect(await recorder.settled(operation).count == 1)
            #expect(target.sets.count == 1 && target.image === placeholderImage)
        }
    }

    @Test func progressReachesOneAndTheProgressBlockRuns() async throws {
        try await withScriptedManager { h in
            let body = ManagerFixtures.png(64, 64, alpha: true)
            let quarter = body.count / 4
            let url = h.serve("/big.png", LoadScript.body(body).inChunks(quarter, 2 * quarter, 3 * quarter))
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let received = Mutex<[Int64]>([])
            target.setImage(with: url, manager: h.manager,
                            progress: { got, _, _ in received.withLock { $0.append(got) } },
                            completed: recorder.completion)
            await recorder.waitForFinals()
            #expect(received.withLock { $0 } == [0, 0, Int64(quarter), Int64(2 * quarter), Int64(3 * quarter),
                                                 Int64(body.count)])
            #expect(target.imageProgress() == ImageTargetProgress(completedUnitCount: Int64(body.count),
                                                                  totalUnitCount: Int64(body.count)))
            #expect(target.imageProgress().fractionCompleted == 1.0)
        }
    }

    @Test func theOperationKeyReachesTheOptionsProcessor() async throws {
        try await withScriptedManager { h in
            let seen = Mutex<[String?]>([])
            h.manager.optionsProcessor = ImageManagerOptionsProcessor { _, options, context in
                seen.withLock { $0.append(context.setImageOperationKey) }
                return (options, context)
            }
            let url = h.serve("/a.png", .png(5, 5))
            let recorder = ResultRecorder()
            OtherTarget().setImage(with: url, manager: h.manager, completed: recorder.completion)
            await recorder.waitForFinals()
            #expect(seen.withLock { $0 } == ["OtherTarget"])
            #expect(h.loader.requests.first?.setImageOperationKey == "OtherTarget")
        }
    }

    @Test func aReleasedTargetStillGetsItsCompletionAndIsFreed() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/a.png", LoadScript.png(5, 5).holding(.started))
            let recorder = ResultRecorder()
            weak var released: RecordingTarget?
            do {
                let target = RecordingTarget()
                released = target
                target.setImage(with: url, manager: h.manager, completed: recorder.completion)
            }
            // Freed while its load is still held at the loader.
            #expect(released == nil)
            await h.loader.waitUntilHeld(url)
            h.loader.release(url)
            #expect(await recorder.waitForFinals().first?.image?.width == 5)
        }
    }

    @Test func progressiveLoadsShowPartialImages() async throws {
        try await withScriptedManager { h in
            let body = ManagerFixtures.png(96, 96)
            let sixth = body.count / 6
            var script = LoadScript.body(body)
            script.chunks = (1..<6).map { $0 * sixth }
            let url = h.serve("/p.png", script)
            let target = RecordingTarget()
            let recorder = ResultRecorder()
            let operation = target.setImage(with: url, options: .progressiveLoad, manager: h.manager,
                                            completed: recorder.completion)
            await recorder.waitForFinals()
            // Without avoidAutoSetImage the completion sees only the final image.
            #expect(await recorder.settled(operation).count == 1)
            let images = target.sets.compactMap(\.image)
            #expect(images.last?.isPartial == false && images.last?.width == 96)
            #expect(images.count >= 2, "partial images were shown")
            #expect(images.dropLast().allSatisfy { $0.isPartial })
        }
    }
}
