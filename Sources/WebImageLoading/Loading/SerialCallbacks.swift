import WebImageCodecs
import Dispatch
import Synchronization

/// One download's callbacks, run one at a time in the order they were queued.
///
/// Callbacks are queued under the download's state lock (so their order matches the state
/// changes) and run later, outside it. The download's own task runs its final results inline once
/// its network part is over, saving a thread hop per image; every other path (progress, a
/// cancellation from another thread) hands them to a global queue, so user code never runs inside
/// a caller's `cancel()` or on the thread that streams the body.
final class SerialCallbacks: Sendable {
    typealias Callback = @Sendable () -> Void

    private struct State {
        var pending: [Callback] = []
        /// True while some thread is running callbacks; it also runs any queued meanwhile.
        var draining = false
    }

    private let state = Mutex(State())

    /// Queues `callback` to run at the next drain. Takes only this object's lock.
    func enqueue(_ callback: @escaping Callback) {
        state.withLock { $0.pending.append(callback) }
    }

    /// Runs the queued callbacks on the calling thread, unless another thread is already running
    /// them (that thread then runs these too).
    func drainHere() {
        guard let batch = claim() else { return }
        run(batch)
    }

    /// Runs the queued callbacks on a global queue, unless another thread is already running them.
    func drainElsewhere() {
        guard let batch = claim() else { return }
        DispatchQueue.global().async { self.run(batch) }
    }

    private func claim() -> [Callback]? {
        state.withLock { state in
            guard !state.draining, !state.pending.isEmpty else { return nil }
            state.draining = true
            defer { state.pending = [] }
            return state.pending
        }
    }

    private func run(_ first: [Callback]) {
        var batch = first
        while true {
            for callback in batch { callback() }
            let next = state.withLock { state -> [Callback]? in
                guard !state.pending.isEmpty else {
                    state.draining = false
                    return nil
                }
                defer { state.pending = [] }
                return state.pending
            }
            guard let next else { return }
            batch = next
        }
    }
}
