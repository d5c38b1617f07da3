import WebImageCodecs
import WebImageLoading
import Foundation

/// Anything that shows one image per operation key — a toolkit's image view, a button, a
/// headless sink — and wants SDWebImage's view-category behaviour (`sd_setImageWithURL:`):
/// placeholders, cancel-on-reuse, a progress value, and no stale image after reuse.
///
/// A conformer implements ``setImage(_:cacheType:)`` and stores one ``ImageTargetLoadState``:
///
/// ```swift
/// final class Thumbnail: ImageTarget {
///     let imageLoadState = ImageTargetLoadState()
///     func setImage(_ image: Image?, cacheType: ImageCacheType) { /* show it */ }
/// }
/// ```
///
/// What is known before `setImage(with:)` returns (the placeholder, a memory hit, a nil-URL
/// failure) is applied on the calling thread; later images arrive on ``imageCallbackQueue``
/// (default `CallbackQueue/shared`: works in a headless process with no main run loop, so a
/// headless target must be safe to call from that queue and from the thread that binds it). A UI toolkit whose views live on the main thread returns
/// `CallbackQueue/main` and binds from the main thread, so every call arrives there; its
/// `@MainActor` view implements the requirement `nonisolated` and uses `MainActor.assumeIsolated`.
public protocol ImageTarget: AnyObject, Sendable {
    /// Shows `image`: the placeholder (`cacheType` `ImageCacheType/none`), a partial image, or
    /// the loaded one with where it came from. Runs under the target's landing lock (that is what
    /// keeps stale images out), so it must not block waiting for another thread that binds this target.
    func setImage(_ image: Image?, cacheType: ImageCacheType)

    /// The per-target load state; store one `let imageLoadState = ImageTargetLoadState()`.
    var imageLoadState: ImageTargetLoadState { get }

    /// Where images and completions arrive when the request's context names no queue
    /// (default `CallbackQueue/shared`).
    var imageCallbackQueue: CallbackQueue { get }
}

extension ImageTarget {
    /// The library's serial callback queue: right for headless targets.
    public var imageCallbackQueue: CallbackQueue { .shared }

    /// The operation key used when a context names none: the conformer's type name.
    public var defaultImageOperationKey: String { String(describing: type(of: self)) }

    /// The URL of the most recent load (of any key); recorded as soon as the load starts.
    public var imageURL: URL? {
        imageLoadState.latestKey.flatMap { imageLoadState.url(forKey: $0) }
    }

    /// The URL of the most recent load under `key` (nil = ``defaultImageOperationKey``).
    public func imageURL(forKey key: String?) -> URL? {
        imageLoadState.url(forKey: key ?? defaultImageOperationKey)
    }

    /// The operation key of the most recent load.
    public var latestImageOperationKey: String? { imageLoadState.latestKey }

    /// The running load under `key` (nil = ``defaultImageOperationKey``); nil once it ended or was cancelled.
    public func imageLoadOperation(forKey key: String?) -> ImageManagerOperation? {
        imageLoadState.operation(forKey: key ?? defaultImageOperationKey)
    }

    /// Progress of the most recent load under `key` (nil = the most recent key): bytes while
    /// downloading, 1.0 once it succeeded.
    public func imageProgress(forKey key: String? = nil) -> ImageTargetProgress {
        guard let key = key ?? imageLoadState.latestKey else { return ImageTargetProgress() }
        return imageLoadState.progress(forKey: key)
    }

    /// Cancels the most recent load (its completion gets `WebImageError/Code/cancelled`).
    public func cancelCurrentImageLoad() {
        guard let key = imageLoadState.latestKey else { return }
        cancelImageLoad(forKey: key)
    }

    /// Cancels the running load under `key` (nil = ``defaultImageOperationKey``).
    public func cancelImageLoad(forKey key: String?) {
        imageLoadState.takeOperation(forKey: key ?? defaultImageOperationKey)?.cancel()
    }
}
