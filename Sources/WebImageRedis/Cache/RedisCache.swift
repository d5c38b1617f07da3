import Foundation
import WebImageCodecs
import WebImageLoading

/// A shared cache tier on Redis behind the library's ``ImageCaching`` protocol, to sit under the
/// local caches in a ``CachesManager`` (memory → disk → Redis → network), so several processes or
/// machines share what one of them downloaded.
///
/// It behaves like a disk tier: it answers queries whose cache type includes disk (a hit reports
/// ``ImageCacheType/disk`` and carries the stored bytes, so the manager can fill the local tiers),
/// and stores the encoded bytes (or the image encoded, like ``ImageCache``) with the entry's HTTP
/// validators and freshness. Stores complete at once and write in the background: the caller never
/// waits for Redis. When Redis is down or slow every operation is a miss (see ``RedisBreaker``).
public final class RedisCache: ImageCaching {
    /// The byte store underneath (namespace, time-to-live, leases).
    public let store: RedisStore

    /// A cache on `store`.
    public init(store: RedisStore) {
        self.store = store
    }

    /// A cache in `namespace` on `client`, entries living `ttl` seconds (0: until Redis evicts them).
    public convenience init(client: RedisClient, namespace: String = "images", ttl: Int = 7 * 24 * 3600) {
        self.init(store: RedisStore(client: client, namespace: namespace, defaultTTL: ttl))
    }

    /// Where hits are decoded: concurrent, off the cooperative pool and off Redis's lanes.
    static let decodeQueue = DispatchQueue(label: "webimage.redis.decode", qos: .userInitiated, attributes: .concurrent)

    @discardableResult
    public func queryImage(forKey key: String?, options: WebImageOptions, context: WebImageContext,
                           cacheType: ImageCacheType,
                           completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) -> (any ImageCacheOperation)? {
        guard let key, cacheType.includesDisk else {
            completion(.none)
            return nil
        }
        let operation = RedisCacheQuery(callbackQueue: context.callbackQueue ?? .shared, completion: completion)
        let decodeOptions = context.resolvedDecodeOptions(for: options, cacheKey: key)
        let coder: any ImageCoding = context.imageCoder ?? CodersManager.shared
        let task = Task {
            guard let envelope = await store.entry(forKey: key), !operation.isFinished else {
                return operation.finish(.none)
            }
            Self.decodeQueue.async {
                guard !operation.isFinished else { return }
                do {
                    let image = try coder.decode(envelope.payload, options: decodeOptions)
                    operation.finish(ImageCacheQueryResult(image: image, data: envelope.payload, cacheType: .disk))
                } catch let error as WebImageError where error.code == .badImageData {
                    // Bytes that passed the checksum but are no image: a miss, replaced by the next store.
                    self.store.client.counters.count(.corrupt)
                    operation.finish(.none)
                } catch {
                    // Too large or unsupported here: the bytes are fine, this decode is not possible.
                    operation.finish(ImageCacheQueryResult(data: envelope.payload, cacheType: .disk))
                }
            }
        }
        operation.attach(task)
        return operation
    }

    /// Writes `data` (else `image` encoded as ``ImageCache`` would) in the background and
    /// completes at once; the write is skipped when Redis is unavailable.
    public func storeImage(_ image: Image?, data: Data?, forKey key: String?, options: WebImageOptions,
                           context: WebImageContext, cacheType: ImageCacheType,
                           completion: (@Sendable (WebImageError?) -> Void)?) {
        guard let key, cacheType.includesDisk, image != nil || data != nil else {
            completion?(nil)
            return
        }
        if let data {
            store.store(data, forKey: key)
        } else if let image {
            let coder: any ImageCoding = context.imageCoder ?? CodersManager.shared
            let encodeOptions = context.imageEncodeOptions ?? .default
            Self.decodeQueue.async {
                guard let bytes = try? coder.encode(image, as: coder.defaultEncodingFormat(for: image),
                                                    options: encodeOptions) else { return }
                self.store.store(bytes, forKey: key)
            }
        }
        completion?(nil)
    }

    public func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        guard let key, cacheType.includesDisk else { completion?(); return }
        Task {
            await store.remove(forKey: key)
            completion?()
        }
    }

    public func containsImage(forKey key: String?, cacheType: ImageCacheType,
                              completion: @escaping @Sendable (ImageCacheType) -> Void) {
        guard let key, cacheType.includesDisk else { completion(.none); return }
        Task { completion(await store.contains(key: key) ? .disk : .none) }
    }

    /// Removes every entry of this cache's namespace (other namespaces and applications keep theirs).
    public func clear(cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        guard cacheType.includesDisk else { completion?(); return }
        Task {
            await store.removeAll()
            completion?()
        }
    }

    // MARK: What the manager asks beyond SDWebImage's protocol

    /// The stored bytes, read synchronously (at most about the operation timeout).
    public func storedData(forKey key: String) -> Data? {
        store.entryBlocking(forKey: key)?.payload
    }

    /// The validators kept in the entry's metadata, read synchronously.
    public func validators(forKey key: String) -> HTTPValidators? {
        guard let metadata = store.entryBlocking(forKey: key)?.metadata, !metadata.isEmpty else { return nil }
        return try? JSONDecoder().decode(HTTPValidators.self, from: metadata)
    }

    /// Rewrites the entry's metadata in the background, after the pending store of its bytes.
    public func setValidators(_ validators: HTTPValidators?, forKey key: String,
                              completion: (@Sendable () -> Void)?) {
        let metadata = validators.flatMap { try? JSONEncoder().encode($0) } ?? Data()
        store.setMetadata(metadata, forKey: key)
        completion?()
    }
}
