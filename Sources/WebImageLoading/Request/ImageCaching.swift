import WebImageCodecs
import Foundation
import Synchronization

/// What a cache query found: the image, the stored bytes when they were read, and where it was.
public struct ImageCacheQueryResult: Sendable {
    /// The image, nil on a miss.
    public var image: Image?
    /// The stored bytes, when the query read them (disk hits, or `queryMemoryData`).
    public var data: Data?
    /// Where the result came from: ``ImageCacheType/memory``, ``ImageCacheType/disk``, or
    /// ``ImageCacheType/none`` for a cancelled query or a cache that has nothing to look in.
    public var cacheType: ImageCacheType

    /// A result with whatever the cache found; the defaults describe a miss.
    public init(image: Image? = nil, data: Data? = nil, cacheType: ImageCacheType = .none) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
    }

    /// Nothing found (and nowhere looked): `(nil, nil, .none)`, also what a cancelled query reports.
    public static let none = ImageCacheQueryResult()
}

/// The cache surface the image manager uses (SDWebImage's `SDImageCache` protocol), implemented by
/// ``ImageCache`` and ``CachesManager``; plug in your own to change where images live.
///
/// Every method calls its completion **exactly once**, whether the work succeeds, fails, is
/// cancelled, or has nothing to do (a nil key completes at once with a miss).
public protocol ImageCaching: AnyObject, Sendable {
    /// Looks `key` up in the caches `cacheType` names.
    /// - Returns: A handle to cancel a query still in flight, or nil when it completed at once.
    @discardableResult
    func queryImage(forKey key: String?, options: WebImageOptions, context: WebImageContext,
                    cacheType: ImageCacheType,
                    completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) -> (any ImageCacheOperation)?

    /// Stores `image` and/or its encoded `data` under `key` in the caches `cacheType` names; the
    /// completion gets the write error, if any (``WebImageError/Code/cacheFailure`` and friends).
    func storeImage(_ image: Image?, data: Data?, forKey key: String?, options: WebImageOptions,
                    context: WebImageContext, cacheType: ImageCacheType,
                    completion: (@Sendable (WebImageError?) -> Void)?)

    /// Removes the entry for `key` from the caches `cacheType` names.
    func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: (@Sendable () -> Void)?)

    /// Reports where `key` is cached: ``ImageCacheType/memory``, ``ImageCacheType/disk`` or
    /// ``ImageCacheType/none``.
    func containsImage(forKey key: String?, cacheType: ImageCacheType,
                       completion: @escaping @Sendable (ImageCacheType) -> Void)

    /// Empties the caches `cacheType` names.
    func clear(cacheType: ImageCacheType, completion: (@Sendable () -> Void)?)

    // MARK: What the manager asks beyond SDWebImage's protocol (each has a default)

    /// The image in memory for `key` as a query with `options` would deliver a memory hit,
    /// answered synchronously; nil when it is not in memory or the cache cannot tell without a
    /// query. The manager answers memory hits through it without starting the pipeline.
    /// Default: nil (every load runs a query).
    func memoryImage(forKey key: String, options: WebImageOptions) -> Image?

    /// The encoded bytes stored for `key`, nil when there are none. A `refreshCached` load
    /// compares them with a full answer from an origin without validators: the same bytes mean
    /// nothing changed. Default: nil (such a refresh always delivers the downloaded image).
    func storedData(forKey key: String) -> Data?

    /// The HTTP validators (ETag, Last-Modified) stored with the entry for `key`, which a
    /// `refreshCached` load sends as a conditional request. Default: nil.
    func validators(forKey key: String) -> HTTPValidators?

    /// Stores `validators` with the entry for `key`, after the writes already asked for; nil
    /// removes them. `completion` runs once they are written (so `waitStoreCache` can wait for
    /// them). Default: does nothing and completes at once.
    func setValidators(_ validators: HTTPValidators?, forKey key: String, completion: (@Sendable () -> Void)?)

    /// Stores as ``storeImage(_:data:forKey:options:context:cacheType:completion:)`` does, with
    /// `validators` kept beside the disk entry (nil or empty: none are written). The completion
    /// gets the store's error once both are written. ``ImageCache`` writes the two together.
    /// Default: the store, then ``setValidators(_:forKey:completion:)`` queued behind it.
    func storeImage(_ image: Image?, data: Data?, validators: HTTPValidators?, forKey key: String?,
                    options: WebImageOptions, context: WebImageContext, cacheType: ImageCacheType,
                    completion: (@Sendable (WebImageError?) -> Void)?)

    /// Drops `fraction` of what the cache holds in memory (least recently used first; 1 empties
    /// it), on a memory-pressure signal (see ``MemoryPressureSignal/shrinkFraction``). Disk
    /// entries stay. Default: nothing (a cache without memory of its own).
    func shrinkMemory(by fraction: Double)
}

extension ImageCaching {
    /// No synchronous memory answer: the manager runs a query.
    public func memoryImage(forKey key: String, options: WebImageOptions) -> Image? { nil }
    /// No stored bytes to compare.
    public func storedData(forKey key: String) -> Data? { nil }
    /// No stored validators.
    public func validators(forKey key: String) -> HTTPValidators? { nil }
    /// Validators are not kept.
    public func setValidators(_ validators: HTTPValidators?, forKey key: String,
                              completion: (@Sendable () -> Void)?) {
        completion?()
    }

    /// No memory to shrink.
    public func shrinkMemory(by fraction: Double) {}

    /// The store, then the validators queued behind it; one completion once both are done.
    public func storeImage(_ image: Image?, data: Data?, validators: HTTPValidators?, forKey key: String?,
                           options: WebImageOptions, context: WebImageContext, cacheType: ImageCacheType,
                           completion: (@Sendable (WebImageError?) -> Void)?) {
        guard let key, let validators, !validators.isEmpty, cacheType.includesDisk else {
            return storeImage(image, data: data, forKey: key, options: options, context: context,
                              cacheType: cacheType, completion: completion)
        }
        let pending = Mutex<(left: Int, error: WebImageError?)>((2, nil))
        let finish: @Sendable (WebImageError?) -> Void = { error in
            let (done, first) = pending.withLock { state -> (Bool, WebImageError?) in
                if state.error == nil { state.error = error }
                state.left -= 1
                return (state.left == 0, state.error)
            }
            if done { completion?(first) }
        }
        storeImage(image, data: data, forKey: key, options: options, context: context, cacheType: cacheType,
                   completion: finish)
        setValidators(validators, forKey: key) { finish(nil) }
    }

    /// Stores `validators` with the entry for `key` without waiting for the write.
    public func setValidators(_ validators: HTTPValidators?, forKey key: String) {
        setValidators(validators, forKey: key, completion: nil)
    }
}

extension ImageCaching {
    /// Looks `key` up; cancelling the calling task cancels the query (which then reports ``ImageCacheQueryResult/none``).
    public func queryImage(forKey key: String?, options: WebImageOptions = [],
                           context: WebImageContext = .none,
                           cacheType: ImageCacheType = .all) async -> ImageCacheQueryResult {
        await awaitCallback { deliver in
            queryImage(forKey: key, options: options, context: context, cacheType: cacheType, completion: deliver)
        }
    }

    /// Stores `image` and/or `data` under `key`, returning once every targeted cache has it.
    /// - Throws: The ``WebImageError`` a write or encode failed with.
    public func storeImage(_ image: Image?, data: Data? = nil, forKey key: String?,
                           options: WebImageOptions = [], context: WebImageContext = .none,
                           cacheType: ImageCacheType = .all) async throws(WebImageError) {
        let error: WebImageError? = await awaitCallback { deliver in
            storeImage(image, data: data, forKey: key, options: options, context: context,
                       cacheType: cacheType, completion: deliver)
            return nil
        }
        if let error { throw error }
    }

    /// Removes the entry for `key`, returning once it is gone.
    public func removeImage(forKey key: String?, cacheType: ImageCacheType = .all) async {
        await awaitCallback { deliver in
            removeImage(forKey: key, cacheType: cacheType) { deliver(()) }
            return nil
        }
    }

    /// Where `key` is cached.
    public func containsImage(forKey key: String?, cacheType: ImageCacheType = .all) async -> ImageCacheType {
        await awaitCallback { deliver in
            containsImage(forKey: key, cacheType: cacheType, completion: deliver)
            return nil
        }
    }

    /// Empties the caches `cacheType` names, returning once they are empty.
    public func clear(cacheType: ImageCacheType) async {
        await awaitCallback { deliver in
            clear(cacheType: cacheType) { deliver(()) }
            return nil
        }
    }
}
