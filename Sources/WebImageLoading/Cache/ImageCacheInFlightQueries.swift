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

/// The waiters of each disk query in flight. A query of the same entry, decoded the same way,
/// joins one in flight instead of reading again, unless a change to that entry was asked for
/// since the first one started: the first may read before the change, the joiner must not.
final class ImageCacheInFlightQueries: Sendable {
    private struct State {
        /// The query each key may join.
        var joinable: [ImageCacheDiskQueryKey: Int] = [:]
        /// Every query in flight (joinable or not) by its number: its key and waiters.
        var running: [Int: (key: ImageCacheDiskQueryKey, waiters: [ImageCacheQueryToken])] = [:]
        var nextNumber = 0
    }

    private let state = Mutex(State())

    /// Adds `token` to the joinable query for `key`, returning nil; or, when there is none, starts
    /// one with `token` as its first waiter and returns its number, so the caller runs it.
    func join(_ key: ImageCacheDiskQueryKey, _ token: ImageCacheQueryToken) -> Int? {
        state.withLock { state in
            if let number = state.joinable[key] {
                state.running[number]!.waiters.append(token)
                return nil
            }
            let number = state.nextNumber
            state.nextNumber += 1
            state.joinable[key] = number
            state.running[number] = (key, [token])
            return number
        }
    }

    /// True when some waiter of query `number` is not cancelled; when none is, forgets the query,
    /// so a later query starts afresh.
    func hasLiveWaiters(_ number: Int) -> Bool {
        state.withLock { state in
            guard let query = state.running[number] else { return false }
            if query.waiters.contains(where: { !$0.isFinished }) { return true }
            Self.forget(number, query.key, &state)
            return false
        }
    }

    /// Ends query `number`, returning its waiters to be given the result.
    func finish(_ number: Int) -> [ImageCacheQueryToken] {
        state.withLock { state in
            guard let query = state.running[number] else { return [] }
            Self.forget(number, query.key, &state)
            return query.waiters
        }
    }

    /// A change to the entry stored under `storageKey` (nil: to every entry) has been asked for:
    /// queries in flight for it take no more waiters.
    func closeJoining(forStorageKey storageKey: String?) {
        state.withLock { state in
            guard !state.joinable.isEmpty else { return }
            guard let storageKey else { return state.joinable.removeAll() }
            for key in state.joinable.keys where key.key == storageKey { state.joinable[key] = nil }
        }
    }

    private static func forget(_ number: Int, _ key: ImageCacheDiskQueryKey, _ state: inout State) {
        state.running[number] = nil
        if state.joinable[key] == number { state.joinable[key] = nil }
    }

    /// Number of queries in flight (for tests).
    var count: Int { state.withLock { $0.running.count } }
}
