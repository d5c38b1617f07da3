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
    /// The default block rule, ``ImageLoadBlockRule/shouldBlock(_:)``: failures that would
    /// repeat on the next try block the URL; transient ones do not.
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

/// The block rule shared by the built-in loaders, SDWebImage's intent per error code: a failure
/// that would repeat on the next try puts the URL on the manager's failed-URL list; a transient or
/// request-specific one does not.
///
/// | blocks | codes |
/// | --- | --- |
/// | yes | 1000 invalidURL, 1001 badImageData, 1005 unsupportedFormat (the bytes cannot be decoded), 2006 tooManyRedirects, 2009 tlsFailure (SDWebImage blocks every network error outside its transient list) |
/// | no | 2001 invalidDownloadStatusCode (a 404 or 500 may be fixed), 2002 cancelled, 2007 timedOut and 2008 connectionFailed (SDWebImage's transient network errors), 2010 forbiddenAddress (the safe-fetch guard's verdict depends on where the name resolves now and on the downloader's allow-list, not on the URL), 2011 sourceNotAllowed (the allow-list is the downloader's setting, not the URL's), 1004 imageTooLarge and 2005 responseTooLarge (another request's limits or thumbnail size may succeed), 2000, 2003, 2004, 1002, 1006, 3000, 3001, and errors of other types |
public enum ImageLoadBlockRule {
    /// The codes that block: a failure that would repeat on the next try.
    public static let blockingCodes: Set<WebImageError.Code> = [
        .invalidURL, .badImageData, .unsupportedFormat, .tooManyRedirects, .tlsFailure,
    ]

    /// True when `error` is a ``WebImageError`` whose code is in ``blockingCodes``.
    public static func shouldBlock(_ error: any Error) -> Bool {
        guard let error = error as? WebImageError else { return false }
        return blockingCodes.contains(error.code)
    }
}
