import WebImageCodecs
import WebImageLoading
import Foundation
import Synchronization

/// Warms the caches with images an application will show soon (SDWebImage's `SDWebImagePrefetcher`).
///
/// Each ``prefetchURLs(_:options:context:progress:completed:)`` call is an independent request
/// with its own ``ImagePrefetchToken``; all requests share one queue that runs at most
/// ``maxConcurrentPrefetchCount`` loads at a time, oldest first, with ``options`` (default
/// `WebImageOptions/lowPriority`, so visible images overtake prefetching in the downloader).
public final class ImagePrefetcher: Sendable {
    /// The library's prefetcher. It has its own ``ImageManager`` (its own failed-URL list and
    /// running set) over the shared cache and the shared loaders, so cancelling prefetching never
    /// touches the loads of ``ImageManager/shared``.
    public static let shared = ImagePrefetcher()

    /// The manager every prefetch load goes through.
    public let manager: ImageManager

    struct Item {
        let token: ImagePrefetchToken
        let index: Int
    }

    struct State {
        var maxConcurrent = 3
        var options: WebImageOptions = .lowPriority
        var context = WebImageContext.none
        var callbackQueue: CallbackQueue?
        weak var delegate: (any ImagePrefetcherDelegate)?
        /// Items waiting for a free slot, oldest first, from `pendingHead` on.
        var pending: [Item] = []
        var pendingHead = 0
        var inFlight = 0
        /// True while one caller is starting queued items (see `startQueuedLoads`).
        var isStarting = false
        /// Requests that have not finished or been cancelled, in start order.
        var running: [ImagePrefetchToken] = []
    }

    let state = Mutex(State())

    /// A prefetcher over `manager` (by default a new manager over the shared cache and loaders).
    public init(manager: ImageManager = ImageManager(cache: ImageCache.shared, loader: LoadersManager.shared)) {
        self.manager = manager
    }

    // MARK: Settings

    /// How many loads run at once across all requests (default 3, at least 1).
    public var maxConcurrentPrefetchCount: Int {
        get { state.withLock { $0.maxConcurrent } }
        set {
            state.withLock { $0.maxConcurrent = max(1, newValue) }
            startQueuedLoads()
        }
    }

    /// Options of requests that name none (default `WebImageOptions/lowPriority`).
    public var options: WebImageOptions {
        get { state.withLock { $0.options } }
        set { state.withLock { $0.options = newValue } }
    }

    /// Context of requests that name none.
    public var context: WebImageContext {
        get { state.withLock { $0.context } }
        set { state.withLock { $0.context = newValue } }
    }

    /// Where progress, completion and delegate calls run when the request's context names no
    /// queue; nil = `CallbackQueue/shared`.
    public var callbackQueue: CallbackQueue? {
        get { state.withLock { $0.callbackQueue } }
        set { state.withLock { $0.callbackQueue = newValue } }
    }

    /// Told about every finished URL and the end of all prefetching; held weakly.
    public var delegate: (any ImagePrefetcherDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// How many requests are running (started, not finished, not cancelled).
    public var runningTokenCount: Int { state.withLock { $0.running.count } }

    // MARK: Prefetching

    /// Loads `urls` into the caches.
    ///
    /// - `progress` runs after each URL finishes, loaded or failed, with this request's counts.
    /// - `completed` runs once when all have finished: how many, and how many were skipped.
    /// - Skipped means the load ended without an image: an error, and also a load that ends with
    ///   neither image nor error (a `fromCacheOnly` miss, a download the manager's delegate or the
    ///   loader declined). SDWebImage counts errors only; here such a URL is not in the cache
    ///   afterwards, so it is not reported as prefetched.
    /// - An empty list calls `completed(0, 0)` before returning and returns nil.
    /// - Returns: The request's token, to cancel it; earlier requests keep running.
    @discardableResult
    public func prefetchURLs(_ urls: [URL], options: WebImageOptions? = nil, context: WebImageContext? = nil,
                             progress: ImagePrefetchProgress? = nil,
                             completed: ImagePrefetchCompletion? = nil) -> ImagePrefetchToken? {
        guard !urls.isEmpty else {
            completed?(0, 0)
            return nil
        }
        let defaults = state.withLock { ($0.options, $0.context, $0.callbackQueue) }
        let context = context ?? defaults.1
        let token = ImagePrefetchToken(urls: urls, options: options ?? defaults.0, context: context,
                                       callbackQueue: context.callbackQueue ?? defaults.2 ?? .shared,
                                       prefetcher: self, progress: progress, completed: completed)
        state.withLock { state in
            state.running.append(token)
            state.pending += urls.indices.map { Item(token: token, index: $0) }
        }
        startQueuedLoads()
        return token
    }

    /// Cancels every running request (see ``ImagePrefetchToken/cancel()``).
    public func cancelPrefetching() {
        let tokens = state.withLock { $0.running }
        for token in tokens { token.cancel() }
    }

    /// Forgets `token`: it stops counting as running and its queued items are dropped.
    func remove(_ token: ImagePrefetchToken) {
        state.withLock { state in
            state.running.removeAll { $0 === token }
            state.pending = state.pending[state.pendingHead...].filter { $0.token !== token }
            state.pendingHead = 0
        }
    }
}
