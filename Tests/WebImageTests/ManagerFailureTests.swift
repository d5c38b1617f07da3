import Foundation
import Testing
@testable import WebImage

@Suite("Image manager: bad URLs, the failed-URL list, the delegate")
struct ManagerFailureTests {
    @Test func nilEmptyAndRelativeURLsAreInvalid() async throws {
        try await withManager { h in
            #expect(await loadError(h.manager, nil)?.code == .invalidURL)
            #expect(await loadError(h.manager, URL(string: "not a url"))?.code == .invalidURL)
            #expect(await loadError(h.manager, URL(string: "just-a-path/x.png"))?.code == .invalidURL)
            let recorder = ResultRecorder()
            h.manager.loadImage(with: nil, completed: recorder.completion)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(result.error?.code == .invalidURL && result.image == nil && result.isFinished)
            #expect(!h.manager.isRunning)
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

    @Test func aURLNoLoaderHandlesIsAClearError() async throws {
        try await withManager { h in
            let error = await loadError(h.manager, URL(string: "ftp://example.com/a.png"))
            #expect(error?.code == .invalidURL)
            #expect(error?.message.contains("ftp") == true)
        }
    }

    @Test func badDataBlocksTheURLUntilRetryFailed() async throws {
        try await withManager { h in
            h.origin.setRoute("/page.png", .data(Array("<html>not an image</html>".utf8), contentType: "image/png"))
            let url = h.origin.url("/page.png")
            #expect(await loadError(h.manager, url)?.code == .badImageData)
            #expect(h.manager.isFailedURL(url))
            #expect(await loadError(h.manager, url)?.code == .blackListed)
            #expect(h.origin.requestCount("/page.png") == 1)
            // retryFailed skips the check; a failure keeps it listed, a success removes it.
            #expect(await loadError(h.manager, url, options: .retryFailed)?.code == .badImageData)
            #expect(h.manager.isFailedURL(url))
            h.origin.setRoute("/page.png", .data(ManagerFixtures.png(4, 4)))
            _ = try await h.manager.image(for: url, options: .retryFailed)
            #expect(!h.manager.isFailedURL(url))
            #expect(h.origin.requestCount("/page.png") == 3)
        }
    }

    @Test func removeFailedURLsClearsTheList() async throws {
        try await withManager { h in
            h.origin.setRoute("/bad1.png", .data([1, 2, 3]))
            h.origin.setRoute("/bad2.png", .data([4, 5, 6]))
            _ = await loadError(h.manager, h.origin.url("/bad1.png"))
            _ = await loadError(h.manager, h.origin.url("/bad2.png"))
            #expect(h.manager.isFailedURL(h.origin.url("/bad1.png")) && h.manager.isFailedURL(h.origin.url("/bad2.png")))
            h.manager.removeFailedURL(h.origin.url("/bad1.png"))
            #expect(!h.manager.isFailedURL(h.origin.url("/bad1.png")))
            h.manager.removeAllFailedURLs()
            #expect(!h.manager.isFailedURL(h.origin.url("/bad2.png")))
        }
    }

    @Test func delegateOverridesTheBlockRuleAndVetoesDownloads() async throws {
        try await withManager { h in
            let delegate = TestManagerDelegate()
            h.manager.delegate = delegate
            h.origin.setRoute("/404.png", .status(404))
            let missing = h.origin.url("/404.png")
            #expect(await loadError(h.manager, missing)?.code == .invalidDownloadStatusCode)
            #expect(h.manager.isFailedURL(missing), "the delegate blocks every failure")

            h.origin.setRoute("/vetoed.png", .data(ManagerFixtures.png(4, 4)))
            let vetoed = h.origin.url("/vetoed.png")
            delegate.allowDownloads = false
            let recorder = ResultRecorder()
            h.manager.loadImage(with: vetoed, completed: recorder.completion)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(result.image == nil && result.error == nil && result.cacheType == .none)
            #expect(await loadError(h.manager, vetoed)?.code == .notCached)
            #expect(h.origin.requestCount("/vetoed.png") == 0)
            withExtendedLifetime(delegate) {}
        }
    }

    @Test func fromCacheOnlyMissHasNoImageAndNoError() async throws {
        try await withManager { h in
            let url = h.origin.url("/never.png")
            let recorder = ResultRecorder()
            h.manager.loadImage(with: url, options: .fromCacheOnly, completed: recorder.completion)
            let result = try #require(await recorder.waitForFinals().first)
            #expect(result.image == nil && result.error == nil && result.isFinished)
            #expect(await loadError(h.manager, url, options: .fromCacheOnly)?.code == .notCached)
            #expect(h.origin.requestCount("/never.png") == 0)
            await h.settle()
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
