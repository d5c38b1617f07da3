import Synchronization

/// Admission of requests that make a result, and slots for their CPU-heavy stages.
///
/// At most `workers + maxQueue` requests make results at once; one beyond is refused at once (the
/// server answers 429) instead of queueing without bound. An admitted request fetches its source
/// without a slot, then waits in arrival order for one of `workers` slots to decode, transform and
/// encode, so a slot never idles on a download. While paused (under memory pressure) no slot is
/// given out: requests keep their place and wait, and the slots go out again in arrival order
/// when it resumes. Admission is per task: work an admitted request
/// runs is not admitted again (a wait for another instance's lease, then the making itself).
final class WorkLimiter: Sendable {
    /// The limiter that admitted the current task, if any.
    @TaskLocal private static var admittedBy: ObjectIdentifier? = nil

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var admitted = 0
        var running = 0
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var paused = false
    }

    let workers: Int
    let maxQueue: Int
    private let state = Mutex(State())
    /// Told the number of requests waiting for a slot each time one starts waiting (tests wait on it).
    let slotWaits = ObserverSlot<Int>()

    init(workers: Int, maxQueue: Int) {
        self.workers = max(1, workers)
        self.maxQueue = max(0, maxQueue)
    }

    /// Requests holding a slot, and admitted requests without one (fetching or waiting for one).
    var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.admitted - $0.running) } }

    /// Whether slots are held back (see ``setPaused(_:)``).
    var isPaused: Bool { state.withLock { $0.paused } }

    /// Holds back slots from now on (work in a slot goes on), or gives them out again to the
    /// requests waiting, longest first, up to `workers`.
    func setPaused(_ paused: Bool) {
        let resumed = state.withLock { state -> [Waiter] in
            state.paused = paused
            guard !paused else { return [] }
            let count = min(state.waiting.count, max(0, workers - state.running))
            state.running += count
            defer { state.waiting.removeFirst(count) }
            return Array(state.waiting.prefix(count))
        }
        for waiter in resumed { waiter.continuation.resume() }
    }

    /// Runs `body` as an admitted request; throws ``ServerError/queueFull`` when `workers +
    /// maxQueue` requests are already admitted. Within `body`, a nested `admit` runs at once.
    func admit<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let identity = ObjectIdentifier(self)
        if Self.admittedBy == identity { return try await body() }
        let admitted = state.withLock { state -> Bool in
            guard state.admitted < workers + maxQueue else { return false }
            state.admitted += 1
            return true
        }
        guard admitted else { throw ServerError.queueFull }
        defer {
            let idleWaiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.admitted -= 1
                guard state.admitted == 0 else { return [] }
                defer { state.idleWaiters = [] }
                return state.idleWaiters
            }
            for waiter in idleWaiters { waiter.resume() }
        }
        return try await Self.$admittedBy.withValue(identity) { try await body() }
    }

    /// Returns once no request is admitted (no slot taken, none waited for): at once when none
    /// is, else when the last admitted request ends.
    func untilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                guard state.admitted > 0 else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Runs `body` in a slot, waiting for one in arrival order; throws `CancellationError` when
    /// the task is cancelled while it waits.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        enum Admission { case now, wait(UInt64) }
        let admission = state.withLock { state -> Admission in
            if !state.paused && state.running < workers { state.running += 1; return .now }
            state.nextID += 1
            return .wait(state.nextID)
        }
        switch admission {
        case .now: return
        case .wait(let id):
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let waiting = state.withLock { state -> Int? in
                        if Task.isCancelled { return nil }
                        state.waiting.append(Waiter(id: id, continuation: continuation))
                        return state.waiting.count
                    }
                    if let waiting {
                        slotWaits(waiting)
                    } else {
                        continuation.resume(throwing: CancellationError())
                    }
                }
            } onCancel: {
                let waiter = state.withLock { state -> Waiter? in
                    guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiting.remove(at: index)
                }
                waiter?.continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Hands the slot to the longest waiter, or frees it (always while paused).
    private func release() {
        let next = state.withLock { state -> Waiter? in
            if state.waiting.isEmpty || state.paused {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume()
    }
}
