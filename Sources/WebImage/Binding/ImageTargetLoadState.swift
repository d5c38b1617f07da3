import WebImageCodecs
import WebImageLoading
import Foundation
import Synchronization

/// How far a target's load has come, SDWebImage's `sd_imageProgress` without `NSProgress`.
public struct ImageTargetProgress: Sendable, Equatable {
    /// Bytes received so far (1 of 1 once a load that reported no bytes — a cache hit — succeeds).
    public var completedUnitCount: Int64 = 0
    /// Bytes expected; 0 while unknown.
    public var totalUnitCount: Int64 = 0

    /// Progress of `completedUnitCount` out of `totalUnitCount` bytes (0 = unknown).
    public init(completedUnitCount: Int64 = 0, totalUnitCount: Int64 = 0) {
        self.completedUnitCount = completedUnitCount
        self.totalUnitCount = totalUnitCount
    }

    /// Completed over total, 0 while the total is unknown, 1.0 once the load succeeded.
    public var fractionCompleted: Double {
        totalUnitCount > 0 ? min(1, Double(completedUnitCount) / Double(totalUnitCount)) : 0
    }
}

/// The load state an ``ImageTarget`` keeps beside itself: per operation key, the latest URL, the
/// running operation and its progress (SDWebImage's associated objects on `UIView`).
///
/// Why a stored box rather than a global table keyed by object identity: the state lives and dies
/// with its target (nothing to sweep, no identifier reused by a later object, no process-wide
/// lock on the hot path), and a conformer pays for it with one line:
/// `let imageLoadState = ImageTargetLoadState()`.
public final class ImageTargetLoadState: Sendable {
    struct KeyState {
        var url: URL?
        var generation: UInt64 = 0
        var operation: ImageManagerOperation?
        var progress = ImageTargetProgress()
    }

    private struct State {
        var keys: [String: KeyState] = [:]
        var latestKey: String?
        var nextGeneration: UInt64 = 1
    }

    private let state = Mutex(State())
    /// Held while a result is checked for staleness and handed to the target, and while a new load
    /// takes over a key, so an old result can never land after a newer load began.
    let landing = NSRecursiveLock()

    /// An empty state; a target stores one and never replaces it.
    public init() {}

    /// The key of the most recent load.
    var latestKey: String? { state.withLock { $0.latestKey } }

    func url(forKey key: String) -> URL? { state.withLock { $0.keys[key]?.url } }

    func operation(forKey key: String) -> ImageManagerOperation? { state.withLock { $0.keys[key]?.operation } }

    func progress(forKey key: String) -> ImageTargetProgress {
        state.withLock { $0.keys[key]?.progress ?? ImageTargetProgress() }
    }

    /// A new load takes over `key`: records its URL, resets progress, returns its generation and
    /// the previous operation (to cancel unless the caller keeps it running).
    func begin(key: String, url: URL?) -> (generation: UInt64, previous: ImageManagerOperation?) {
        state.withLock { state in
            let generation = state.nextGeneration
            state.nextGeneration += 1
            state.latestKey = key
            let previous = state.keys[key]?.operation
            state.keys[key] = KeyState(url: url, generation: generation)
            return (generation, previous)
        }
    }

    /// True while `generation` is the latest load of `key`.
    func isCurrent(_ key: String, _ generation: UInt64) -> Bool {
        state.withLock { $0.keys[key]?.generation == generation }
    }

    /// Records the operation of load `generation`, unless a newer load took over or it has ended.
    func setOperation(_ operation: ImageManagerOperation, key: String, generation: UInt64) {
        state.withLock { state in
            guard state.keys[key]?.generation == generation, !operation.isFinished else { return }
            state.keys[key]?.operation = operation
        }
    }

    func updateProgress(key: String, generation: UInt64, received: Int64, expected: Int64) {
        state.withLock { state in
            guard state.keys[key]?.generation == generation else { return }
            state.keys[key]?.progress = ImageTargetProgress(completedUnitCount: max(0, received),
                                                            totalUnitCount: max(0, expected))
        }
    }

    /// Load `generation` ended: forget its operation; on success make its progress complete.
    func loadEnded(key: String, generation: UInt64, succeeded: Bool) {
        state.withLock { state in
            guard var entry = state.keys[key], entry.generation == generation else { return }
            entry.operation = nil
            if succeeded {
                let total = entry.progress.totalUnitCount > 0 ? entry.progress.totalUnitCount : 1
                entry.progress = ImageTargetProgress(completedUnitCount: total, totalUnitCount: total)
            }
            state.keys[key] = entry
        }
    }

    /// Takes the operation of `key` away (to cancel it).
    func takeOperation(forKey key: String) -> ImageManagerOperation? {
        state.withLock { state in
            defer { state.keys[key]?.operation = nil }
            return state.keys[key]?.operation
        }
    }
}
