import Dispatch
import Synchronization

/// One blocking call's place in a lane's queue: the caller waits until a deadline for its turn,
/// and a turn that comes after the caller gave up is skipped.
final class BlockingTurn<T: Sendable>: Sendable {
    private enum Phase { case queued, started, abandoned }

    private let phase = Mutex(Phase.queued)
    private let outcome = Mutex<Result<T, RedisError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Called when the turn comes: true to run the work, false when the caller gave up.
    func start() -> Bool {
        phase.withLock { phase in
            guard phase == .queued else { return false }
            phase = .started
            return true
        }
    }

    /// Hands the work's result to the waiting caller.
    func finish(_ result: Result<T, RedisError>) {
        outcome.withLock { $0 = result }
        done.signal()
    }

    /// The work's result; ``RedisError/Kind/deadline`` when its turn had not come by `deadline`
    /// (uptime nanoseconds). Work that started is waited for to its end.
    func wait(until deadline: UInt64) -> Result<T, RedisError> {
        if done.wait(timeout: DispatchTime(uptimeNanoseconds: deadline)) == .timedOut {
            let gaveUp = phase.withLock { phase in
                guard phase == .queued else { return false }
                phase = .abandoned
                return true
            }
            if gaveUp {
                return .failure(RedisError(.deadline, "waited longer than the operation timeout for a connection"))
            }
            done.wait()
        }
        return outcome.withLock { $0 } ?? .failure(RedisError(.deadline, "no result"))
    }
}
