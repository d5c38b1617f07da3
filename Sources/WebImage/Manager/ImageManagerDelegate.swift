import WebImageCodecs
import WebImageLoading
import Foundation

/// Lets an application veto downloads and decide which failures block a URL
/// (SDWebImage's `SDWebImageManagerDelegate`). Both methods have defaults, so implement only what
/// you need. Called on arbitrary threads.
public protocol ImageManagerDelegate: AnyObject, Sendable {
    /// Whether `url`, missing from the cache, may be downloaded. Returning false completes the
    /// load with no image and no error (`WebImageError/Code/notCached` in the async API).
    func imageManager(_ manager: ImageManager, shouldDownloadImageFor url: URL) -> Bool

    /// Whether a load of `url` that failed with `error` puts the URL on the failed-URL list.
    /// Returning non-nil fully overrides the loader's rule; nil (the default) defers to it.
    func imageManager(_ manager: ImageManager, shouldBlockFailedURL url: URL, error: WebImageError) -> Bool?
}

extension ImageManagerDelegate {
    /// Every download is allowed.
    public func imageManager(_ manager: ImageManager, shouldDownloadImageFor url: URL) -> Bool { true }

    /// The loader decides.
    public func imageManager(_ manager: ImageManager, shouldBlockFailedURL url: URL,
                             error: WebImageError) -> Bool? { nil }
}

/// Rewrites a request's options and context just before it runs (SDWebImage's
/// `SDWebImageOptionsProcessor`): it sees the manager's transformer, key filter and serializer
/// already merged into the context. Returning nil keeps the input.
public struct ImageManagerOptionsProcessor: Sendable {
    private let body: @Sendable (URL, WebImageOptions, WebImageContext) -> (WebImageOptions, WebImageContext)?

    /// A processor running `body`.
    public init(_ body: @escaping @Sendable (URL, WebImageOptions, WebImageContext)
                -> (options: WebImageOptions, context: WebImageContext)?) {
        self.body = { url, options, context in body(url, options, context).map { ($0.options, $0.context) } }
    }

    /// The processed options and context for `url`.
    func process(_ url: URL, _ options: WebImageOptions,
                 _ context: WebImageContext) -> (WebImageOptions, WebImageContext) {
        body(url, options, context) ?? (options, context)
    }
}
