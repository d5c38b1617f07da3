import WebImageCodecs
import Dispatch
import Foundation

/// SDWebImage's `SDImageCache` for Linux: a ``MemoryCache`` of decoded images in front of a
/// ``DiskCaching`` store of encoded bytes, with SDWebImage's store, query and cancel rules.
///
/// - **Store** writes memory synchronously, before returning, and disk on the cache's serial I/O
///   queue (encoding first when no data is given).
/// - **Query** answers from memory synchronously, and from disk synchronously or on the I/O queue
///   by the `queryMemoryData` / `queryMemoryDataSync` / `queryDiskDataSync` options. Disk hits are
///   decoded once per key even when many queries wait for them, and promoted into memory.
/// - Every completion runs exactly once; asynchronous ones run on the context's callback queue,
///   else ``ImageCacheConfig/callbackQueue``.
///
/// Disk writes, removals and encodes run on one serial I/O queue (as in SDWebImage), so changes to
/// the disk happen in the order they were asked for. A query whose key has no change still queued
/// reads and decodes at once on a concurrent queue (every change asked for before it is done);
/// otherwise it reads in its turn on the I/O queue. Disk hits are decoded off the I/O queue, so
/// they use every core (a synchronous query decodes inline).
public final class ImageCache: ImageCaching {
    /// The cache the library uses by default: namespace `"default"` under the default directory.
    public static let shared = ImageCache(namespace: "default")

    /// The settings this cache was created with.
    public let config: ImageCacheConfig
    /// The decoded images; its limits can be changed live.
    public let memoryCache: MemoryCache
    /// The encoded bytes.
    public let diskCache: any DiskCaching
    /// The directory entries are stored in: `<directory>/<namespace>`.
    public let diskCachePath: String

    /// The serial queue every disk change (and every read of a key with a change still queued)
    /// runs on, in the order asked for.
    let ioQueue: DispatchQueue
    /// ``ioQueue`` as a callback queue, used to tell when code already runs there.
    private let ioExecutor: CallbackQueue
    /// Disk queries in flight, so concurrent queries of one key read and decode once.
    let inFlightQueries = ImageCacheInFlightQueries()
    /// Disk changes queued on ``ioQueue`` and not yet done.
    let pendingDiskWork = ImageCachePendingDiskWork()
    /// True when ``diskCache`` is the built-in ``DiskCache``, whose reads are safe beside its
    /// writes on other threads; a custom store is only ever called on ``ioQueue``.
    let readsOffIOQueue: Bool

    /// A cache storing its files in `<directory>/<namespace>/`.
    /// - Parameters:
    ///   - namespace: The subdirectory, so several caches can share a root. ``shared`` uses `"default"`.
    ///   - directory: The root; nil = ``DiskCacheConfig/defaultDirectory``
    ///     (`$XDG_CACHE_HOME/webimage` or `~/.cache/webimage`).
    ///   - config: Memory and disk settings.
    public init(namespace: String = "default", directory: URL? = nil,
                config: ImageCacheConfig = ImageCacheConfig()) {
        var diskConfig = config.disk
        diskConfig.directory = directory ?? DiskCacheConfig.defaultDirectory
        diskConfig.namespace = namespace
        self.config = config
        memoryCache = MemoryCache(costLimit: config.maxMemoryCost, countLimit: config.maxMemoryCount,
                                  timeToLive: config.memoryTimeToLive,
                                  usesWeakCache: config.shouldUseWeakMemoryCache)
        diskCache = config.diskCacheFactory?(diskConfig) ?? DiskCache(config: diskConfig)
        diskCachePath = diskConfig.directory.appendingPathComponent(namespace, isDirectory: true).path
        ioQueue = DispatchQueue(label: "webimage.imagecache.io.\(namespace)", qos: .utility)
        ioExecutor = CallbackQueue(ioQueue, policy: .safeExecute)
        readsOffIOQueue = diskCache is DiskCache
    }

    // MARK: Paths

    /// The file path the disk entry for `key` is (or would be) stored at; nil for a nil key.
    public func cachePath(forKey key: String?) -> String? {
        key.map { diskCache.cachePath(forKey: $0) }
    }

    // MARK: Helpers

    /// The queue a request's asynchronous completions run on.
    func callbackQueue(for context: WebImageContext) -> CallbackQueue {
        context.callbackQueue ?? config.callbackQueue
    }

    /// Queues a change to `key`'s disk entry (nil: to every entry) on the I/O queue, noted as
    /// pending until it is done so reads of that key keep their place behind it; `then` gets the
    /// change's outcome after that, so a read it starts finds the change settled.
    func onIOQueueAsync<Outcome: Sendable>(changing key: String?, _ change: @escaping @Sendable () -> Outcome,
                                           then: @escaping @Sendable (Outcome) -> Void = { _ in }) {
        noteChange(key)
        ioQueue.async {
            let outcome = change()
            self.pendingDiskWork.end(key)
            then(outcome)
        }
    }

    /// Runs a change to `key`'s disk entry (nil: to every entry) on the I/O queue and waits for
    /// it, noted as pending meanwhile like ``onIOQueueAsync(changing:_:then:)``.
    func onIOQueueSync<Result>(changing key: String?, _ change: () -> Result) -> Result {
        noteChange(key)
        defer { pendingDiskWork.end(key) }
        return onIOQueueSync(change)
    }

    /// Notes a change asked for now: pending until done, and no query in flight for the entry
    /// takes more waiters (it may read before the change; a later query must not share it).
    private func noteChange(_ key: String?) {
        pendingDiskWork.begin(key)
        inFlightQueries.closeJoining(forStorageKey: key)
    }

    /// Runs `body` on the I/O queue and waits for it; inline when already there (so a nested
    /// synchronous call from a completion running on the I/O queue cannot deadlock).
    func onIOQueueSync<Result>(_ body: () -> Result) -> Result {
        ioExecutor.isCurrent ? body() : ioQueue.sync(execute: body)
    }

    /// Whether a disk hit should be kept in memory: the context's store type allows memory and
    /// the config caches images in memory.
    func promotesToMemory(_ context: WebImageContext) -> Bool {
        context.resolvedStoreCacheType.includesMemory && config.shouldCacheImagesInMemory
    }

    /// The memory key for a query: the thumbnail key when the decode makes a thumbnail of a
    /// full-size key, so a thumbnail decoded from full data never lands under the full key.
    func memoryKey(forKey key: String, decodeOptions: DecodeOptions) -> String {
        guard let size = decodeOptions.thumbnailPixelSize, !size.isEmpty, !CacheKey.isThumbnailKey(key) else {
            return key
        }
        return CacheKey.thumbnailKey(for: key, size: size, preserveAspectRatio: decodeOptions.preserveAspectRatio)
    }
}
