import WebImageCodecs
import Foundation

/// The manager's requirements beyond SDWebImage's protocol, forwarded by the same policies as the
/// operations they belong to: reads follow ``CachesManager/queryPolicy``, validator writes follow
/// ``CachesManager/storePolicy`` (they annotate what a store wrote).
extension CachesManager {
    /// The memory hit a query would deliver at once: under ``Policy/serial``, ``Policy/highestOnly``
    /// and ``Policy/lowestOnly`` the first cache asked is the one a query asks first, so its memory
    /// hit is the query's answer. Under ``Policy/concurrent`` whichever cache answers first wins, so
    /// there is no synchronous answer (nil: the query runs).
    public func memoryImage(forKey key: String, options: WebImageOptions) -> Image? {
        let policy = queryPolicy
        guard policy != .concurrent else { return nil }
        return targets(for: policy).first?.memoryImage(forKey: key, options: options)
    }

    /// The stored bytes of the first cache, in query order, that has any.
    public func storedData(forKey key: String) -> Data? {
        for cache in targets(for: queryPolicy) {
            if let data = cache.storedData(forKey: key) { return data }
        }
        return nil
    }

    /// The validators of the first cache, in query order, that has any.
    public func validators(forKey key: String) -> HTTPValidators? {
        for cache in targets(for: queryPolicy) {
            if let validators = cache.validators(forKey: key) { return validators }
        }
        return nil
    }

    /// Stores `validators` in every cache a store writes to.
    public func setValidators(_ validators: HTTPValidators?, forKey key: String) {
        for cache in targets(for: storePolicy) {
            cache.setValidators(validators, forKey: key)
        }
    }
}
