import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A load records each stage's handle after the call that starts it returns; a cache query that
/// answers synchronously has already started the loader request by then. The stale query must
/// not replace the loader stage, or cancel() would miss the request.
@Suite("Image manager: stage records")
struct ManagerStageTests {
    /// A loader whose requests wait until cancelled; it counts requests and cancellations.
    final class WaitingLoader: ImageLoading {
        final class Token: ImageLoadCancellable {
            let owner: WaitingLoader
            let completion: ImageLoadCompletion
            let url: URL
            init(owner: WaitingLoader, url: URL, completion: @escaping ImageLoadCompletion) {
                self.owner = owner
                self.url = url
                self.completion = completion
            }
            func cancel() {
                owner.counts.withLock { $0.cancels += 1 }
                completion(.failure(WebImageError(.cancelled, "cancelled", url: url)))
            }
        }
        let counts = Mutex((requests: 0, cancels: 0))
        func canRequest(_ url: URL) -> Bool { true }
        func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                          progress: ImageLoadProgress?,
                          completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
            counts.withLock { $0.requests += 1 }
            return Token(owner: self, url: url, completion: completion)
        }
    }

    @Test func aSynchronousCacheAnswerLeavesTheLoaderStageRecordedAndCancellable() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stage-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = ImageCache(namespace: "stage", directory: root)
        let url = URL(string: "https://example.invalid/a.png")!
        cache.memoryCache.set(Image(bitmap: TestBitmaps.gradient(width: 4, height: 4)), forKey: url.absoluteString)
        let loader = WaitingLoader()
        let manager = ImageManager(cache: cache, loader: loader)
        var context = WebImageContext()
        context.callbackQueue = .immediate
        let results = Mutex<[ImageManagerResult]>([])
        // refreshCached: the memory query answers synchronously, then the revalidation request starts.
        let operation = manager.loadImage(with: url, options: .refreshCached, context: context) { result in
            results.withLock { $0.append(result) }
        }
        #expect(loader.counts.withLock { $0.requests } == 1)
        #expect(operation.loaderOperation != nil)
        #expect(operation.cacheOperation == nil)
        operation.cancel()
        #expect(loader.counts.withLock { $0.cancels } == 1)
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 2)
        #expect(delivered.first?.cacheType == .memory)
        #expect(delivered.last?.error?.code == .cancelled)
        #expect(!manager.isRunning)
    }
}
