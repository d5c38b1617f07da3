import Synchronization

/// Admission for the CPU-heavy stages: at most `workers` requests hold a slot, at most `maxQueue`
/// wait for one in arrival order, and a request beyond both is refused at once (the server answers
/// 429) instead of queueing without bound.
final class WorkLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
    }

    let workers: Int
    let maxQueue: Int
    private let state = Mutex(State())

    init(workers: Int, maxQueue: Int) {
        self.workers = max(1, workers)
        self.maxQueue = max(0, maxQueue)
    }

    /// Requests holding a slot and requests waiting for one.
    var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    /// Runs `body` in a slot; throws ``ServerError/queueFull`` when the queue is full, and
    /// `CancellationError` when the task is cancelled while it waits.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async throws {
        enum Admission { case now, full, wait(UInt64) }
        let admission = state.withLock { state -> Admission in
            if state.running < workers { state.running += 1; return .now }
            if state.waiting.count >= maxQueue { return .full }
            state.nextID += 1
            return .wait(state.nextID)
        }
        switch admission {
        case .now: return
        case .full: throw ServerError.queueFull
        case .wait(let id):
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let cancelled = state.withLock { state -> Bool in
                        if Task.isCancelled { return true }
                        state.waiting.append(Waiter(id: id, continuation: continuation))
                        return false
                    }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
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

    /// Hands the slot to the longest waiter, or frees it.
    private func release() {
        let next = state.withLock { state -> Waiter? in
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.continuation.resume()
    }
}
