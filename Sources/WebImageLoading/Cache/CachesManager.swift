import WebImageCodecs
import Foundation
import Synchronization

/// Several caches behind one ``ImageCaching`` (SDWebImage's `SDImageCachesManager`), e.g. a small
/// fast cache in front of a shared one, or a read-mostly bundle cache.
///
/// ``caches`` is a priority list: the **last** cache has the highest priority. Each operation
/// follows its policy; the defaults are SDWebImage's: query serial, store highest-only, remove
/// concurrent, contains serial, clear concurrent. Unlike SDWebImage, every completion fires
/// exactly once, also with no caches or a nil key (with a miss).
public final class CachesManager: ImageCaching {
    /// How an operation is spread over the caches.
    public enum Policy: Sendable, Hashable, CaseIterable {
        /// Only the highest-priority (last) cache.
        case highestOnly
        /// Only the lowest-priority (first) cache.
        case lowestOnly
        /// All caches at once; the first decisive answer (an image, a presence) wins.
        case concurrent
        /// One cache at a time from the highest priority down, stopping at the first decisive answer.
        case serial
    }

    /// A manager holding ``ImageCache/shared``, for apps that add their own caches beside it and
    /// pass it as an manager's cache (the shared manager uses ``ImageCache/shared`` directly).
    public static let shared = CachesManager(caches: [ImageCache.shared])

    /// The operation policies; the cache list lives in ``list``.
    private struct Policies {
        var queryPolicy = Policy.serial
        var storePolicy = Policy.highestOnly
        var removePolicy = Policy.concurrent
        var containsPolicy = Policy.serial
        var clearPolicy = Policy.concurrent
        var fillsHigherPriorityCaches = false
    }

    private let list: PriorityList<any ImageCaching>
    private let state = Mutex(Policies())

    /// A manager over `caches`, lowest priority first.
    public init(caches: [any ImageCaching] = []) {
        list = PriorityList(caches)
    }

    /// The caches, lowest priority first.
    public var caches: [any ImageCaching] {
        get { list.elements }
        set { list.elements = newValue }
    }

    /// Adds `cache` with the highest priority.
    public func addCache(_ cache: any ImageCaching) {
        list.add(cache)
    }

    /// Removes `cache` (the same object) from the list.
    public func removeCache(_ cache: any ImageCaching) {
        list.removeAll { $0 === cache }
    }

    /// How queries run. Default ``Policy/serial``: the first image found wins.
    public var queryPolicy: Policy {
        get { state.withLock { $0.queryPolicy } }
        set { state.withLock { $0.queryPolicy = newValue } }
    }

    /// How stores run. Default ``Policy/highestOnly``.
    public var storePolicy: Policy {
        get { state.withLock { $0.storePolicy } }
        set { state.withLock { $0.storePolicy = newValue } }
    }

    /// How removals run. Default ``Policy/concurrent``.
    public var removePolicy: Policy {
        get { state.withLock { $0.removePolicy } }
        set { state.withLock { $0.removePolicy = newValue } }
    }

    /// How presence checks run. Default ``Policy/serial``: the first cache that has it answers.
    public var containsPolicy: Policy {
        get { state.withLock { $0.containsPolicy } }
        set { state.withLock { $0.containsPolicy = newValue } }
    }

    /// How clears run. Default ``Policy/concurrent``.
    public var clearPolicy: Policy {
        get { state.withLock { $0.clearPolicy } }
        set { state.withLock { $0.clearPolicy = newValue } }
    }

    /// Whether a serial query's hit in a lower-priority cache is also stored in the caches asked
    /// before it, so the next query is answered by the faster tier (memory → disk → a shared tier
    /// such as Redis). Default false, as SDWebImage. The fill is not waited for.
    public var fillsHigherPriorityCaches: Bool {
        get { state.withLock { $0.fillsHigherPriorityCaches } }
        set { state.withLock { $0.fillsHigherPriorityCaches = newValue } }
    }

    /// The caches `policy` addresses, highest priority first.
    func targets(for policy: Policy) -> [any ImageCaching] {
        let caches = caches
        switch policy {
        case .highestOnly: return caches.last.map { [$0] } ?? []
        case .lowestOnly: return caches.first.map { [$0] } ?? []
        case .concurrent, .serial: return caches.reversed()
        }
    }

    // MARK: ImageCaching

    /// Stores into the caches ``storePolicy`` names; the completion gets the first error.
    public func storeImage(_ image: Image?, data: Data?, forKey key: String?, options: WebImageOptions,
                           context: WebImageContext, cacheType: ImageCacheType,
                           completion: (@Sendable (WebImageError?) -> Void)?) {
        guard key != nil else { completion?(nil); return }
        CachesManagerGroup<WebImageError?>.run(
            targets(for: storePolicy), concurrently: storePolicy == .concurrent, initial: nil,
            isDecisive: { _ in false }, combine: { $0 ?? $1 },
            operation: { cache, done in
                cache.storeImage(image, data: data, forKey: key, options: options, context: context,
                                 cacheType: cacheType, completion: done)
            },
            completion: { completion?($0) })
    }

    /// Removes from the caches ``removePolicy`` names.
    public func removeImage(forKey key: String?, cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        guard key != nil else { completion?(); return }
        CachesManagerGroup<Bool>.run(
            targets(for: removePolicy), concurrently: removePolicy == .concurrent, initial: true,
            isDecisive: { _ in false }, combine: { _, _ in true },
            operation: { cache, done in cache.removeImage(forKey: key, cacheType: cacheType) { done(true) } },
            completion: { _ in completion?() })
    }

    /// Asks the caches ``containsPolicy`` names; the first answer other than
    /// ``ImageCacheType/none`` wins.
    ///
    /// SDWebImage switches on its clear policy here (an upstream bug); this uses ``containsPolicy``.
    public func containsImage(forKey key: String?, cacheType: ImageCacheType,
                              completion: @escaping @Sendable (ImageCacheType) -> Void) {
        guard key != nil else { completion(.none); return }
        let policy = containsPolicy
        CachesManagerGroup<ImageCacheType>.run(
            targets(for: policy), concurrently: policy == .concurrent, initial: .none,
            isDecisive: { $0 != .none }, combine: { $0 != .none ? $0 : $1 },
            operation: { cache, done in cache.containsImage(forKey: key, cacheType: cacheType, completion: done) },
            completion: completion)
    }

    /// Clears the caches ``clearPolicy`` names.
    public func clear(cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        CachesManagerGroup<Bool>.run(
            targets(for: clearPolicy), concurrently: clearPolicy == .concurrent, initial: true,
            isDecisive: { _ in false }, combine: { _, _ in true },
            operation: { cache, done in cache.clear(cacheType: cacheType) { done(true) } },
            completion: { _ in completion?() })
    }

    /// Shrinks the memory of every cache, whatever the policies say.
    public func shrinkMemory(by fraction: Double) {
        for cache in caches { cache.shrinkMemory(by: fraction) }
    }
}
