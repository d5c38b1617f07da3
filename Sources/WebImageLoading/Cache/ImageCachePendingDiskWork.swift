import Synchronization

/// The disk changes queued on an ``ImageCache``'s I/O queue and not yet done, per key and for the
/// whole cache, so a read can tell whether it must wait its turn on that queue.
///
/// A query of a key with nothing pending finds every change asked for before it already done on
/// disk, so it may read at once, off the queue, instead of waiting behind other keys' writes: a
/// cold load's miss no longer queues behind the stores of the loads before it.
final class ImageCachePendingDiskWork: Sendable {
    private struct State {
        var perKey: [String: Int] = [:]
        /// Changes to every entry at once (clear, expiry) still queued.
        var wholeCache = 0
    }

    private let state = Mutex(State())

    /// Notes a change queued for `key`, or for every entry when `key` is nil.
    func begin(_ key: String?) {
        state.withLock { state in
            if let key { state.perKey[key, default: 0] += 1 } else { state.wholeCache += 1 }
        }
    }

    /// Notes that a change noted by ``begin(_:)`` with the same `key` is done.
    func end(_ key: String?) {
        state.withLock { state in
            guard let key else { return state.wholeCache -= 1 }
            let left = (state.perKey[key] ?? 1) - 1
            state.perKey[key] = left > 0 ? left : nil
        }
    }

    /// True when no change queued before now can touch `key`'s entry.
    func isSettled(_ key: String) -> Bool {
        state.withLock { $0.wholeCache == 0 && $0.perKey[key] == nil }
    }
}
