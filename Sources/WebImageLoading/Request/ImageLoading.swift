import WebImageCodecs
import Foundation

/// Progress of one load: bytes received so far, bytes expected (`-1` before the response,
/// `0` when the server did not say), and the URL. Called on an arbitrary thread.
public typealias ImageLoadProgress = @Sendable (_ received: Int64, _ expected: Int64, _ url: URL) -> Void

/// Receives partial images (``ImageLoadResult/isFinished`` false) and then exactly one final result.
/// Called on an arbitrary thread.
public typealias ImageLoadCompletion = @Sendable (ImageLoadResult) -> Void

/// Something that turns a URL into an image: SDWebImage's `SDImageLoader`.
///
/// The image manager asks each loader whether it can handle a URL, starts the request, and asks
/// the loader whether a failure should put the URL on its failed-URL list.
public protocol ImageLoading: Sendable {
    /// True when this loader handles `url` (for example by its scheme).
    func canRequest(_ url: URL) -> Bool

    /// Starts loading `url`. `completion` is called exactly once with a finished result (an image,
    /// or an error), possibly after partial results when `options` has `.progressiveLoad`.
    /// Returns a token that cancels this caller's request, or nil when the request failed at once
    /// (in that case `completion` has already been called with the error).
    @discardableResult
    func requestImage(with url: URL, options: WebImageOptions, context: WebImageContext,
                      progress: ImageLoadProgress?,
                      completion: @escaping ImageLoadCompletion) -> (any ImageLoadCancellable)?

    /// True when `error`, from loading `url`, means the URL should not be tried again
    /// (bad URL or bad data), false for transient failures (status, timeout, network, cancel).
    func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool
}

extension ImageLoading {
    /// The default block rule: only an invalid URL and bad image data block; HTTP status errors,
    /// timeouts, connection and TLS failures, size limits, redirect loops and cancellation do not.
    /// SDWebImage's downloader treats its own two codes the same, but also blocks every URLSession
    /// error outside a short transient list, which includes TLS failures and redirect loops.
    public func shouldBlockFailedURL(_ url: URL, error: any Error) -> Bool {
        ImageLoadBlockRule.shouldBlock(error)
    }

    /// Loads `url` and returns the finished result; partial images are skipped. Task cancellation
    /// cancels the request. Throws the load's ``WebImageError``.
    public func loadImage(_ url: URL, options: WebImageOptions = [], context: WebImageContext = .none,
                          progress: ImageLoadProgress? = nil) async throws -> ImageLoadResult {
        let result: ImageLoadResult = await awaitCallback { deliver in
            requestImage(with: url, options: options, context: context, progress: progress) { result in
                if result.isFinished { deliver(result) }
            }
        }
        if let error = result.error { throw error }
        return result
    }
}

/// The block rule shared by the built-in loaders.
public enum ImageLoadBlockRule {
    /// True for ``WebImageError/Code/invalidURL`` and ``WebImageError/Code/badImageData``.
    public static func shouldBlock(_ error: any Error) -> Bool {
        guard let error = error as? WebImageError else { return false }
        return error.code == .invalidURL || error.code == .badImageData
    }
}
