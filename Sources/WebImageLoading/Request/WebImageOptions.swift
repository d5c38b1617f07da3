import WebImageCodecs

/// Per-request switches, SDWebImage's `SDWebImageOptions` with the same bits and meanings.
///
/// Flags that only matter to a view (placeholder timing, auto-set, auto-cancel) are honoured by
/// the view binding (`ImageTarget`). A few have no meaning without UIKit and are documented as such:
/// - `continueInBackground`: iOS background tasks; ignored.
/// - `forceTransition`, `waitTransition`: there are no view transitions to run; accepted, ignored.
/// - `transformVectorImage`: no vector formats decode here; accepted, ignored.
/// - bit 18 `avoidDecodeImage` is not defined: images are always decoded to bitmaps.
public struct WebImageOptions: OptionSet, Sendable, Hashable {
    /// The bits, the same as SDWebImage's `SDWebImageOptions` values.
    public let rawValue: UInt32
    /// The options whose bits are set in `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Load even if the URL is on the failed-URL list; success removes it from the list.
    public static let retryFailed = WebImageOptions(rawValue: 1 << 0)
    /// Download with low priority (behind normal and high requests in the queue).
    public static let lowPriority = WebImageOptions(rawValue: 1 << 1)
    /// Deliver partial images while the data arrives (`isPartial` images before the final one).
    public static let progressiveLoad = WebImageOptions(rawValue: 1 << 2)
    /// On a cache hit, deliver the cached image, then revalidate with the server (ETag /
    /// Last-Modified) and deliver again only if the image changed.
    public static let refreshCached = WebImageOptions(rawValue: 1 << 3)
    /// Ignored on Linux (an iOS background-task flag), kept for source compatibility.
    public static let continueInBackground = WebImageOptions(rawValue: 1 << 4)
    /// Send and store cookies with the downloader's cookie jar.
    public static let handleCookies = WebImageOptions(rawValue: 1 << 5)
    /// Accept any TLS certificate (self-signed, expired, wrong host). For testing only.
    public static let allowInvalidSSLCertificates = WebImageOptions(rawValue: 1 << 6)
    /// Download with high priority (ahead of queued normal and low requests).
    public static let highPriority = WebImageOptions(rawValue: 1 << 7)
    /// View binding: show the placeholder only when loading fails.
    public static let delayPlaceholder = WebImageOptions(rawValue: 1 << 8)
    /// Let the transformer run on animated images too.
    public static let transformAnimatedImage = WebImageOptions(rawValue: 1 << 9)
    /// View binding: do not set the image on the target; the completion gets it.
    public static let avoidAutoSetImage = WebImageOptions(rawValue: 1 << 10)
    /// Decode large images scaled down to ``DecodeOptions/defaultScaleDownLimitBytes`` (90 MiB); not part of the cache key.
    public static let scaleDownLargeImages = WebImageOptions(rawValue: 1 << 11)
    /// Also read the disk data when the memory cache hits (asynchronously).
    public static let queryMemoryData = WebImageOptions(rawValue: 1 << 12)
    /// With `queryMemoryData`: read that data synchronously.
    public static let queryMemoryDataSync = WebImageOptions(rawValue: 1 << 13)
    /// On a memory miss, query the disk synchronously.
    public static let queryDiskDataSync = WebImageOptions(rawValue: 1 << 14)
    /// Never load from the network; a cache miss completes with no image and no error.
    public static let fromCacheOnly = WebImageOptions(rawValue: 1 << 15)
    /// Skip the cache query (the result is still stored).
    public static let fromLoaderOnly = WebImageOptions(rawValue: 1 << 16)
    /// View binding: run the transition even for cache hits.
    public static let forceTransition = WebImageOptions(rawValue: 1 << 17)
    /// Decode only the first frame of animated images.
    public static let decodeFirstFrameOnly = WebImageOptions(rawValue: 1 << 19)
    /// Decode every frame of an animation now and hold them all, instead of on request (disk and
    /// download decodes; within `DecodeLimits.maxTotalBytes`).
    public static let preloadAllFrames = WebImageOptions(rawValue: 1 << 20)
    /// The image must be made by the context's `animatedImageFactory`: a memory hit made
    /// otherwise is a miss, and data the factory declines fails with `badImageData` instead of
    /// going to the coder. No effect without a factory, or with ``decodeFirstFrameOnly``.
    public static let matchAnimatedImageClass = WebImageOptions(rawValue: 1 << 21)
    /// Call the completion only after the image has been written to the disk cache.
    public static let waitStoreCache = WebImageOptions(rawValue: 1 << 22)
    /// Let the transformer run on vector images (none decode here yet).
    public static let transformVectorImage = WebImageOptions(rawValue: 1 << 23)
    /// View binding: do not cancel the target's previous load with the same operation key.
    public static let avoidAutoCancelImage = WebImageOptions(rawValue: 1 << 24)
    /// View binding: call the completion after the transition finishes.
    public static let waitTransition = WebImageOptions(rawValue: 1 << 25)
    /// Judge a cached image by its response's HTTP freshness (`Cache-Control`, `Expires`): a fresh
    /// one is used as it is; a stale one is revalidated before use, or used at once and
    /// revalidated in the background within `stale-while-revalidate`; a `no-store` response is not
    /// written to disk. Without it the caches ignore HTTP headers, as SDWebImage's do.
    public static let respectsHTTPFreshness = WebImageOptions(rawValue: 1 << 28)

    /// Every named option with its lowerCamelCase name, to read options given as text (settings files).
    public static let named: [(name: String, option: WebImageOptions)] = [
        ("retryFailed", .retryFailed), ("lowPriority", .lowPriority),
        ("progressiveLoad", .progressiveLoad), ("refreshCached", .refreshCached),
        ("continueInBackground", .continueInBackground), ("handleCookies", .handleCookies),
        ("allowInvalidSSLCertificates", .allowInvalidSSLCertificates), ("highPriority", .highPriority),
        ("delayPlaceholder", .delayPlaceholder), ("transformAnimatedImage", .transformAnimatedImage),
        ("avoidAutoSetImage", .avoidAutoSetImage), ("scaleDownLargeImages", .scaleDownLargeImages),
        ("queryMemoryData", .queryMemoryData), ("queryMemoryDataSync", .queryMemoryDataSync),
        ("queryDiskDataSync", .queryDiskDataSync), ("fromCacheOnly", .fromCacheOnly),
        ("fromLoaderOnly", .fromLoaderOnly), ("forceTransition", .forceTransition),
        ("decodeFirstFrameOnly", .decodeFirstFrameOnly), ("preloadAllFrames", .preloadAllFrames),
        ("matchAnimatedImageClass", .matchAnimatedImageClass),
        ("waitStoreCache", .waitStoreCache), ("transformVectorImage", .transformVectorImage),
        ("avoidAutoCancelImage", .avoidAutoCancelImage), ("waitTransition", .waitTransition),
        ("respectsHTTPFreshness", .respectsHTTPFreshness),
    ]

    /// The option with lowerCamelCase `name`, or nil.
    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.name == name }) else { return nil }
        self = match.option
    }
}
