import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Hands every request to a real loader and counts them once handed over, so a test can await
/// "the manager has asked the downloader for N loads" (each has then joined or been queued in
/// the downloader) before letting the origin answer. For the few manager tests whose subject is
/// the downloader underneath.
final class ForwardingLoader: ImageLoading {
    private let inner: any ImageLoading
    private let forwarded = Watched([URL]())

    init(_ inner: any ImageLoading) { self.inner = inner }

    func canRequest(_ url: URL) -> Bool { inner.canRequest(url) }

    @discardableResult
    func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                      progress: ImageLoadProgress?,
                      completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)? {
        let token = inner.requestImage(with: url, options: options, context: context, progress: progress,
                                       completion: completion)
        forwarded.update { $0.append(url) }
        return token
    }

    func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool { inner.shouldBlockFailedURL(url, error: error) }

    /// The URLs handed over so far, in order.
    var urls: [URL] { forwarded.value }

    /// Waits until `count` requests have been handed to the inner loader.
    @discardableResult
    func waitForRequests(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await forwarded.wait("\(count) forwarded requests", sourceLocation: sourceLocation) { $0.count >= count }
    }
}
