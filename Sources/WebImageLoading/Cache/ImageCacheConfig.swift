import WebImageCodecs
import Foundation

/// Settings for an ``ImageCache`` (SDWebImage's `SDImageCacheConfig`), plain values fixed at init.
///
/// Memory limits default to ``MemoryCache``'s; disk limits to ``DiskCacheConfig``'s (a finite
/// size limit and continuous trimming, unlike SDWebImage). Limits can still be changed live on
/// ``ImageCache/memoryCache``.
public struct ImageCacheConfig: Sendable {
    /// Keep images in memory on store and on disk hits. Default true. When false, stores and
    /// promotions skip memory (``ImageCache/storeImageToMemory(_:forKey:)`` still writes).
    public var shouldCacheImagesInMemory = true
    /// Let memory-evicted images still alive elsewhere be found again. Default false (SDWebImage ≥ 5.12).
    public var shouldUseWeakMemoryCache = false
    /// The memory cache's cost limit in bytes; 0 = unlimited. Default ``MemoryCache/defaultCostLimit``.
    public var maxMemoryCost = MemoryCache.defaultCostLimit
    /// The memory cache's entry-count limit; 0 = unlimited (the default).
    public var maxMemoryCount = 0
    /// How long a memory entry stays valid; nil (the default) = until evicted.
    public var memoryTimeToLive: Duration?
    /// Disk limits and expiry: age, size, expire type, trimming, extended-data storage. Its
    /// `directory` and `namespace` are replaced by the ones ``ImageCache/init(namespace:directory:config:)`` gets.
    public var disk = DiskCacheConfig()
    /// Builds the disk store from the final disk config; nil = ``DiskCache``. For custom storage
    /// (SDWebImage's `diskCacheClass`).
    public var diskCacheFactory: (@Sendable (DiskCacheConfig) -> any DiskCaching)?
    /// Where completions run unless a request's context names a queue. Default ``CallbackQueue/shared``.
    public var callbackQueue = CallbackQueue.shared
    /// Read-only directories searched, after the disk cache misses, for a file named as the disk
    /// cache would name it (e.g. images shipped with an app). Never written to.
    public var additionalCacheDirectories: [URL] = []
    /// A read-only path for a key, tried after ``additionalCacheDirectories`` (SDWebImage's
    /// `additionalCachePathBlock`). Data found there is returned but not copied into the cache.
    public var additionalCachePath: (@Sendable (String) -> String?)?

    /// A configuration with the defaults above.
    public init() {}

    /// Entries older than this many seconds are deleted by ``ImageCache/deleteOldFiles(completion:)``;
    /// < 0 never expires. Default one week.
    public var maxDiskAge: TimeInterval {
        get { disk.maxDiskAge }
        set { disk.maxDiskAge = newValue }
    }

    /// The disk size limit in bytes; 0 = unlimited. Default 512 MiB.
    public var maxDiskSize: Int {
        get { disk.maxDiskSize }
        set { disk.maxDiskSize = newValue }
    }

    /// The file date that decides age and trim order. Default access date (LRU).
    public var diskCacheExpireType: DiskCacheExpireType {
        get { disk.expireType }
        set { disk.expireType = newValue }
    }
}
