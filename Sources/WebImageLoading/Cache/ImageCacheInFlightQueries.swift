import WebImageCodecs
import Synchronization

/// What makes two disk queries interchangeable: the same entry, decoded the same way, by the same
/// coder, with the same promotion. Queries with equal keys share one read and one decode.
struct ImageCacheDiskQueryKey: Hashable, Sendable {
    var key: String
    var memoryKey: String
    var decodeOptions: DecodeOptions
    /// The context's coder instance; nil = the shared coders manager.
    var coder: ObjectIdentifier?
    /// The context's animated-image factory's name, and whether the image must be its kind
    /// (``WebImageContext/requiredAnimatedImageFactory(for:)`` is not nil).
    var animatedImageFactory: String?
    var mustMatchFactory: Bool
    var promotes: Bool
    /// False for a disk-only query: it must decode the stored bytes, not reuse a memory entry.
    var mayUseMemory = true
}

/// The waiters of each disk query in flight.
final class ImageCacheInFlightQueries: Sendable {
    private let waiters = Mutex<[ImageCacheDiskQueryKey: [ImageCacheQueryToken]]>([:])

    /// Adds `token` to the query for `key`; true when it is the first, so the caller must start
    /// the query.
    func join(_ key: ImageCacheDiskQueryKey, _ token: ImageCacheQueryToken) -> Bool {
        waiters.withLock { waiters in
            if waiters[key] != nil {
                waiters[key]!.append(token)
                return false
            }
            waiters[key] = [token]
            return true
        }
    }

    /// True when some waiter of `key` is not cancelled; when none is, forgets the query, so a
    /// later query starts afresh.
    func hasLiveWaiters(_ key: ImageCacheDiskQueryKey) -> Bool {
        waiters.withLock { waiters in
            if waiters[key]?.contains(where: { !$0.isFinished }) == true { return true }
            waiters[key] = nil
            return false
        }
    }

    /// Ends the query for `key`, returning its waiters to be given the result.
    func finish(_ key: ImageCacheDiskQueryKey) -> [ImageCacheQueryToken] {
        waiters.withLock { $0.removeValue(forKey: key) ?? [] }
    }

    /// Number of queries in flight (for tests).
    var count: Int { waiters.withLock { $0.count } }
}
