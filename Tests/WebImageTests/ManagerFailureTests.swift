import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Image manager: bad URLs, the failed-URL list, the delegate")
struct ManagerFailureTests {
    @Test func nilEmptyAndRelativeURLsAreInvalid() async throws {
        try await withScriptedManager { h in
            #expect(await loadError(h.manager, nil)?.code == .invalidURL)
            #expect(await loadError(h.manager, URL(string: "not a url"))?.code == .invalidURL)
            #expect(await loadError(h.manager, URL(string: "just-a-path/x.png"))?.code == .invalidURL)
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: nil, completed: recorder.completion)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(await recorder.settled(operation).count == 1)
            #expect(result.error?.code == .invalidURL && result.image == nil && result.isFinished)
            #expect(!h.manager.isRunning)
            #expect(h.loader.requestCount == 0)
        }
    }

    @Test func schemeCheckAgreesWithFoundation() {
        let strings = ["http://a/b.png", "HTTPS://x", "data:image/png;base64,AA==", "file:///tmp/a.png",
                       "a+b-c.d://h", "x:", "1http://a", "just-a-path/x.png", "/abs/path.png", "//host/p",
                       "ht tp://a", "-a://b", "a_b://c", ":nope", "C:/windows/x.png", "mailto:a@b", "h"]
        for string in strings {
            guard let url = URL(string: string) else { continue }
            #expect(ImageManager.hasScheme(url.absoluteString) == (url.scheme != nil), "\(string)")
        }
    }

    /// A URL no loader handles ends with no image and no error: the download decision says no,
    /// and SDWebImage's manager ends such a load the same way.
    @Test func aURLNoLoaderHandlesEndsWithNoImageAndNoError() async throws {
        try await withScriptedManager { h in
            let url = URL(string: "ftp://example.com/a.png")
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, completed: recorder.completion)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(await recorder.settled(operation).count == 1)
            #expect(result.image == nil && result.error == nil && result.isFinished)
            let error = await loadError(h.manager, url)
            #expect(error?.code == .notCached && error?.message.contains("ftp") == true)
            // A web URL without a host is malformed, not refused.
            #expect(await loadError(h.manager, URL(string: "http:///a.png"))?.code == .invalidURL)
            // ...but only when it would be loaded: a cache-only miss stays a plain miss.
            #expect(await loadError(h.manager, URL(string: "http:///a.png"), options: .fromCacheOnly)?.code == .notCached)
            #expect(h.loader.requestCount == 0)
        }
    }

    @Test func aCustomLoaderThatRefusesAnHTTPURLEndsWithNoImageAndNoError() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/refused.png", .png(8, 8))
            let loader = RefusingLoader()
            var context = WebImageContext()
            context.imageLoader = loader
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, context: context, completed: recorder.completion)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(result.image == nil && result.error == nil && result.isFinished && result.cacheType == .none)
            #expect(await recorder.settled(operation).count == 1)
            #expect(loader.asked > 0 && loader.requested == 0)
            #expect(h.loader.requestCount == 0)
            #expect(!h.manager.isFailedURL(url))
            // A cached copy is still delivered; a refresh the loader refuses adds nothing after it.
            let cached = Image(bitmap: TestBitmaps.gradient(width: 3, height: 3))
            h.cache.storeImageToMemory(cached, forKey: url.absoluteString)
            let refresh = ResultRecorder()
            let refreshing = h.manager.loadImage(with: url, options: .refreshCached, context: context,
                                                 completed: refresh.completion)
            await refresh.waitForFinals()
            let finals = await refresh.settled(refreshing)
            #expect(finals.count == 1 && finals.first?.image === cached && finals.first?.cacheType == .memory)
            #expect(loader.requested == 0)
            #expect(!h.manager.isRunning)
        }
    }

    @Test func badDataBlocksTheURLUntilRetryFailed() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/page.png", .body(Array("<html>not an image</html>".utf8), contentType: "image/png"))
            #expect(await loadError(h.manager, url)?.code == .badImageData)
            #expect(h.manager.isFailedURL(url))
            #expect(await loadError(h.manager, url)?.code == .blackListed)
            #expect(h.loader.requestCount(url) == 1)
            // retryFailed skips the check; a failure keeps it listed, a success removes it.
            #expect(await loadError(h.manager, url, options: .retryFailed)?.code == .badImageData)
            #expect(h.manager.isFailedURL(url))
            h.serve("/page.png", .png(4, 4))
            _ = try await h.manager.image(for: url, options: .retryFailed)
            #expect(!h.manager.isFailedURL(url))
            #expect(h.loader.requestCount(url) == 3)
        }
    }

    @Test func removeFailedURLsClearsTheList() async throws {
        try await withScriptedManager { h in
            let bad1 = h.serve("/bad1.png", .body([1, 2, 3]))
            let bad2 = h.serve("/bad2.png", .body([4, 5, 6]))
            _ = await loadError(h.manager, bad1)
            _ = await loadError(h.manager, bad2)
            #expect(h.manager.isFailedURL(bad1) && h.manager.isFailedURL(bad2))
            h.manager.removeFailedURL(bad1)
            #expect(!h.manager.isFailedURL(bad1))
            h.manager.removeAllFailedURLs()
            #expect(!h.manager.isFailedURL(bad2))
        }
    }

    @Test func loadsSeeEveryChangeToTheFailedList() async throws {
        try await withScriptedManager { h in
            let bad1 = h.serve("/bad1.png", .body([1, 2, 3]))
            let bad2 = h.serve("/bad2.png", .body([4, 5, 6]))
            let good = h.serve("/good.png", .png(4, 4))
            _ = await loadError(h.manager, bad1)
            _ = await loadError(h.manager, bad2)
            // Taking one URL off leaves the other blocked: the list is still not empty.
            h.manager.removeFailedURL(bad1)
            #expect(await loadError(h.manager, bad2)?.code == .blackListed)
            #expect(await loadError(h.manager, bad1)?.code == .badImageData)
            #expect(h.loader.requestCount(bad1) == 2 && h.loader.requestCount(bad2) == 1)
            // Emptied, every URL reaches the loader again; a URL that never failed is unaffected.
            h.manager.removeFailedURLs([bad1, bad2])
            #expect(await loadError(h.manager, bad2)?.code == .badImageData)
            #expect(h.loader.requestCount(bad2) == 2)
            h.manager.removeAllFailedURLs()
            _ = try await h.manager.image(for: good)
            #expect(h.loader.requestCount(good) == 1)
        }
    }

    @Test func delegateOverridesTheBlockRuleAndVetoesDownloads() async throws {
        try await withScriptedManager { h in
            let delegate = TestManagerDelegate()
            h.manager.delegate = delegate
            let missing = h.serve("/404.png", .status(404))
            #expect(await loadError(h.manager, missing)?.code == .invalidDownloadStatusCode)
            #expect(h.manager.isFailedURL(missing), "the delegate blocks every failure")

            let vetoed = h.serve("/vetoed.png", .png(4, 4))
            delegate.allowDownloads = false
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: vetoed, completed: recorder.completion)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(await recorder.settled(operation).count == 1)
            #expect(result.image == nil && result.error == nil && result.cacheType == .none)
            #expect(await loadError(h.manager, vetoed)?.code == .notCached)
            #expect(h.loader.requestCount(vetoed) == 0)
            withExtendedLifetime(delegate) {}
        }
    }

    @Test func fromCacheOnlyMissHasNoImageAndNoError() async throws {
        try await withScriptedManager { h in
            let url = h.serve("/never.png", .png(4, 4))
            let recorder = ResultRecorder()
            let operation = h.manager.loadImage(with: url, options: .fromCacheOnly, completed: recorder.completion)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(await recorder.settled(operation).count == 1)
            #expect(result.image == nil && result.error == nil && result.isFinished)
            #expect(await loadError(h.manager, url, options: .fromCacheOnly)?.code == .notCached)
            #expect(h.loader.requestCount == 0)
            #expect(!h.manager.isRunning)
        }
    }
}

/// A delegate that blocks every failed URL and can refuse downloads.
final class TestManagerDelegate: ImageManagerDelegate, @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var _allowDownloads = true
    var allowDownloads: Bool {
        get { lock.withLock { _allowDownloads } }
        set { lock.withLock { _allowDownloads = newValue } }
    }

    func imageManager(_ manager: ImageManager, shouldDownloadImageFor url: URL) -> Bool { allowDownloads }

    func imageManager(_ manager: ImageManager, shouldBlockFailedURL url: URL, error: WebImageError) -> Bool? { true }
}

/// A loader that handles nothing, and counts how often it was asked and used.
final class RefusingLoader: ImageLoading {
    private let counts = Mutex((asked: 0, requested: 0))

    var asked: Int { counts.withLock { $0.asked } }
    var requested: Int { counts.withLock { $0.requested } }

    func canRequest(_ url: URL) -> Bool {
        counts.withLock { $0.asked += 1 }
        return false
    }

    func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                      progress: ImageLoadProgress?,
                      completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        counts.withLock { $0.requested += 1 }
        completion(.failure(WebImageError(.invalidURL, "RefusingLoader loads nothing.", url: url)))
        return nil
    }
}
