import Synchronization

/// Identical work in flight done once: callers asking for the same key while a job runs wait for
/// that job's value. A caller stops waiting when its task is cancelled (its request timed out or
/// its client left) without disturbing the others; when the last one leaves, the job is cancelled.
final class SharedJobs<Value: Sendable>: Sendable {
    private struct Job {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
    }

    private struct State {
        var jobs: [String: Job] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Told each key's number of waiting callers after one joins (tests wait on it).
    private let joined: (@Sendable (_ key: String, _ waiters: Int) -> Void)?

    init(joined: (@Sendable (_ key: String, _ waiters: Int) -> Void)? = nil) {
        self.joined = joined
    }

    /// Jobs running now.
    var count: Int { state.withLock { $0.jobs.count } }

    /// The value of the job for `key`, starting it with `work` if none runs. Throws what the job
    /// throws, or `CancellationError` when the calling task is cancelled while it waits.
    func value(for key: String, work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let waiterID = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(key: key, waiterID: waiterID, continuation: continuation, work: work)
            }
        } onCancel: {
            leave(key: key, waiterID: waiterID)
        }
    }

    private func join(key: String, waiterID: UInt64, continuation: CheckedContinuation<Value, any Error>,
                      work: @escaping @Sendable () async throws -> Value) {
        let waiters = state.withLock { state -> Int? in
            if Task.isCancelled { return nil }
            if state.jobs[key] != nil {
                state.jobs[key]!.waiters[waiterID] = continuation
                return state.jobs[key]!.waiters.count
            }
            state.nextID += 1
            let jobID = state.nextID
            var job = Job(id: jobID)
            job.waiters[waiterID] = continuation
            job.task = Task { [self] in
                let result: Result<Value, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                finish(key: key, jobID: jobID, with: result)
            }
            state.jobs[key] = job
            return 1
        }
        guard let waiters else { return continuation.resume(throwing: CancellationError()) }
        joined?(key, waiters)
    }

    /// Hands `result` to every caller still waiting for job `jobID`.
    private func finish(key: String, jobID: UInt64, with result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard let job = state.jobs[key], job.id == jobID else { return [] }
            state.jobs[key] = nil
            return Array(job.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// One caller stops waiting; the job is cancelled (and forgotten) when it was the last.
    private func leave(key: String, waiterID: UInt64) {
        let (waiter, orphaned) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
            guard var job = state.jobs[key], let waiter = job.waiters.removeValue(forKey: waiterID) else {
                return (nil, nil)
            }
            if job.waiters.isEmpty {
                state.jobs[key] = nil
                return (waiter, job.task)
            }
            state.jobs[key] = job
            return (waiter, nil)
        }
        orphaned?.cancel()
        waiter?.resume(throwing: CancellationError())
    }
}
