import WebImageCodecs
import WebImageLoading
import Foundation
import Synchronization

/// One call from a URL to a decoded, cached image: SDWebImage's `SDWebImageManager` for Linux.
///
/// A load runs SDWebImage's pipeline in its order: block-list check, options processing, cache
/// query (memory, then disk), a query of the original when a thumbnail or transformed key misses,
/// the download, the transform, then storing the original and the final image. The completion
/// runs exactly once with a final result (plus partial images with `progressiveLoad`, and the
/// cached image first with `refreshCached`), on the context's callback queue or
/// `CallbackQueue/shared`.
///
/// One difference from SDWebImage, decided for users: when a load has no thumbnail and no
/// transformer (the original key is the final key), only the final store runs, so
/// `storeCacheType = .memory` really means memory only (SDWebImage also writes the bytes to disk
/// through its original-store step).
public final class ImageManager: Sendable {
    /// The manager the library uses by default, over `ImageCache/shared` and `LoadersManager/shared`.
    public static let shared = ImageManager()

    /// Where images are cached unless a request's context names another cache.
    public let imageCache: any ImageCaching
    /// What loads images unless a request's context names another loader.
    public let imageLoader: any ImageLoading

    private struct Settings {
        var transformer: (any ImageTransforming)?
        var cacheKeyFilter: CacheKeyFilter?
        var cacheSerializer: ImageCacheSerializer?
        var optionsProcessor: ImageManagerOptionsProcessor?
        weak var delegate: (any ImageManagerDelegate)?
        var currentDate: @Sendable () -> Date = { Date() }
    }

    private let settings = Mutex(Settings())
    /// True while the transformer, key filter, serializer or options processor is set: until
    /// then a load skips the settings lock (a memory hit takes a few hundred nanoseconds).
    private let hasRequestDefaults = Atomic(false)
    private let failedURLs = Mutex(Set<URL>())
    /// True while the failed-URL list is not empty: until then a load skips its lock.
    private let hasFailedURLs = Atomic(false)
    private let running = Mutex([ObjectIdentifier: ImageManagerOperation]())

    /// A manager over `cache` and `loader` (by default the shared cache and the shared loaders:
    /// HTTP(S), `file:` and `data:`).
    public init(cache: any ImageCaching = ImageCache.shared, loader: any ImageLoading = LoadersManager.shared) {
        imageCache = cache
        imageLoader = loader
    }

    // MARK: Settings

    /// Applied to every load whose context names no transformer and does not disable it.
    public var transformer: (any ImageTransforming)? {
        get { settings.withLock { $0.transformer } }
        set { updateRequestDefaults { $0.transformer = newValue } }
    }

    /// Turns URLs into cache keys unless a context names its own; nil = the URL's absolute string.
    public var cacheKeyFilter: CacheKeyFilter? {
        get { settings.withLock { $0.cacheKeyFilter } }
        set { updateRequestDefaults { $0.cacheKeyFilter = newValue } }
    }

    /// Chooses the bytes written to disk for requests whose context names no serializer. With no
    /// serializer (this property nil), a store writes the loaded bytes, or the image encoded by
    /// the cache when there are none. A serializer that returns nil does not skip the write: the
    /// loaded bytes are dropped and the cache writes the image encoded (see `ImageCacheSerializer`).
    public var cacheSerializer: ImageCacheSerializer? {
        get { settings.withLock { $0.cacheSerializer } }
        set { updateRequestDefaults { $0.cacheSerializer = newValue } }
    }

    /// Rewrites each request's options and context after the manager's defaults are merged in.
    public var optionsProcessor: ImageManagerOptionsProcessor? {
        get { settings.withLock { $0.optionsProcessor } }
        set { updateRequestDefaults { $0.optionsProcessor = newValue } }
    }

    /// Vetoes downloads and overrides the block rule; held weakly.
    public var delegate: (any ImageManagerDelegate)? {
        get { settings.withLock { $0.delegate } }
        set { settings.withLock { $0.delegate = newValue } }
    }

    /// The wall clock HTTP freshness is judged by (`WebImageOptions/respectsHTTPFreshness`,
    /// `WebImageOptions/refreshCached`): when a response arrived and whether it is still fresh.
    /// The system clock by default; tests set one they move by hand.
    public var currentDate: @Sendable () -> Date {
        get { settings.withLock { $0.currentDate } }
        set { settings.withLock { $0.currentDate = newValue } }
    }

    /// Changes the settings every load applies, keeping `hasRequestDefaults` in step.
    private func updateRequestDefaults(_ change: (inout Settings) -> Void) {
        settings.withLock { settings in
            change(&settings)
            let any = settings.transformer != nil || settings.cacheKeyFilter != nil
                || settings.cacheSerializer != nil || settings.optionsProcessor != nil
            hasRequestDefaults.store(any, ordering: .releasing)
        }
    }

    // MARK: Cache keys

    /// The base cache key of `url`: the key filter's, else the absolute string; "" for nil.
    /// Ignores thumbnails and transformers.
    public func cacheKey(for url: URL?) -> String {
        guard let url else { return "" }
        return (cacheKeyFilter?.key(for: url)) ?? url.absoluteString
    }

    /// The full cache key of `url` under `context`: the base key (context filter first), then the
    /// thumbnail part, then the transformer part — SDWebImage's fixed order.
    public func cacheKey(for url: URL?, context: WebImageContext) -> String? {
        guard let url else { return "" }
        let transformer = context.disablesTransformer ? nil : (context.imageTransformer ?? self.transformer)
        return Self.derivedKey(originalKey(for: url, context: context), context: context, transformer: transformer)
    }

    /// The key of the original (untransformed, full-size) image for a context the manager has not
    /// processed yet; nil when the filter skips caching.
    func originalKey(for url: URL, context: WebImageContext) -> String? {
        if let filter = context.cacheKeyFilter ?? cacheKeyFilter { return filter.key(for: url) }
        return url.absoluteString
    }

    static func derivedKey(_ key: String?, context: WebImageContext,
                           transformer: (any ImageTransforming)?) -> String? {
        guard var key else { return nil }
        if let size = context.thumbnailPixelSize, !size.isEmpty {
            key = CacheKey.thumbnailKey(for: key, size: size, preserveAspectRatio: context.resolvedPreserveAspectRatio)
        }
        if let transformer {
            key = CacheKey.transformedKey(for: key, transformerKey: transformer.transformerKey)
        }
        return key
    }

    // MARK: Failed URLs

    /// True when `url` is on the failed-URL list (it fails at once unless `retryFailed` is set).
    public func isFailedURL(_ url: URL) -> Bool {
        guard hasFailedURLs.load(ordering: .acquiring) else { return false }
        return failedURLs.withLock { $0.contains(url) }
    }

    /// Takes `url` off the failed-URL list.
    public func removeFailedURL(_ url: URL) { updateFailedURLs { _ = $0.remove(url) } }

    /// Takes `urls` off the failed-URL list.
    public func removeFailedURLs(_ urls: [URL]) { updateFailedURLs { $0.subtract(urls) } }

    /// Empties the failed-URL list.
    public func removeAllFailedURLs() { updateFailedURLs { $0.removeAll() } }

    func addFailedURL(_ url: URL) { updateFailedURLs { _ = $0.insert(url) } }

    /// Changes the failed-URL list, keeping `hasFailedURLs` in step.
    private func updateFailedURLs(_ change: (inout Set<URL>) -> Void) {
        failedURLs.withLock { urls in
            change(&urls)
            hasFailedURLs.store(!urls.isEmpty, ordering: .releasing)
        }
    }

    // MARK: Running loads

    /// True while any load is running.
    public var isRunning: Bool { running.withLock { !$0.isEmpty } }

    /// How many loads are running.
    public var runningCount: Int { running.withLock { $0.count } }

    /// Cancels every running load; each reports `WebImageError/Code/cancelled` once.
    public func cancelAll() {
        let operations = running.withLock { Array($0.values) }
        for operation in operations { operation.cancel() }
    }

    /// Adds a load to the running set, unless it already ended.
    func register(_ operation: ImageManagerOperation) {
        guard !operation.isFinished else { return }
        running.withLock { $0[ObjectIdentifier(operation)] = operation }
        if !operation.attach(to: self) { unregister(operation) }
    }

    func unregister(_ operation: ImageManagerOperation) {
        _ = running.withLock { $0.removeValue(forKey: ObjectIdentifier(operation)) }
    }

    /// The caller's context with the manager's transformer, key filter and serializer filled in
    /// where it has none (the caller wins), then the options processor's rewrite.
    func processed(_ url: URL, _ options: WebImageOptions,
                   _ context: WebImageContext) -> (WebImageOptions, WebImageContext) {
        guard hasRequestDefaults.load(ordering: .acquiring) else { return (options, context) }
        let (transformer, filter, serializer, processor) = settings.withLock {
            ($0.transformer, $0.cacheKeyFilter, $0.cacheSerializer, $0.optionsProcessor)
        }
        var context = context
        // Assign only what changes: a context shares its storage until written.
        if let transformer, context.imageTransformer == nil, !context.disablesTransformer {
            context.imageTransformer = transformer
        }
        if let filter, context.cacheKeyFilter == nil { context.cacheKeyFilter = filter }
        if let serializer, context.cacheSerializer == nil { context.cacheSerializer = serializer }
        guard let processor else { return (options, context) }
        return processor.process(url, options, context)
    }
}
