import Synchronization

/// A circuit breaker for the shared cache: after ``Policy/failureThreshold`` failures in a row it
/// *opens*, and every operation is skipped (a miss, costing one lock) for a back-off period; then
/// one background probe is allowed, which closes it on success or opens it again for twice as long
/// (up to ``Policy/maximumBackoff``). Time comes from an injected clock, so tests never sleep.
public final class RedisBreaker: Sendable {
    /// When to open and how long to stay open.
    public struct Policy: Sendable, Hashable {
        /// Consecutive failures that open the breaker (default 2).
        public var failureThreshold = 2
        /// The first back-off, in milliseconds (default 1 s).
        public var initialBackoffMilliseconds = 1000
        /// The longest back-off, in milliseconds (default 30 s).
        public var maximumBackoffMilliseconds = 30_000

        public init() {}
    }

    /// Whether operations go to Redis.
    public enum State: String, Sendable, Hashable {
        /// Operations go to Redis.
        case closed
        /// Operations are skipped until the back-off has passed.
        case open
        /// The back-off has passed and one probe is under way; operations are still skipped.
        case probing
    }

    /// What ``admit()`` decided for one operation.
    enum Admission: Equatable {
        /// Ask Redis.
        case proceed
        /// Skip: the breaker is open.
        case skip
        /// Skip, and run the probe now (exactly one caller gets this per back-off).
        case probe
    }

    private struct Status {
        var state = State.closed
        var failures = 0
        var backoff: UInt64 = 0
        var reopenAt: UInt64 = 0
    }

    public let policy: Policy
    private let now: @Sendable () -> UInt64
    private let status = Mutex(Status())
    private let transition: @Sendable (State, State) -> Void

    /// A breaker reading time (nanoseconds, any origin) from `now`; `transition(old, new)` is told
    /// every change of state, after it happened (logs, metrics, tests).
    init(policy: Policy, now: @escaping @Sendable () -> UInt64,
         transition: @escaping @Sendable (State, State) -> Void) {
        self.policy = policy
        self.now = now
        self.transition = transition
    }

    /// The state now.
    public var state: State { status.withLock { $0.state } }

    /// Whether to ask Redis for one operation.
    func admit() -> Admission {
        let (admission, changed) = status.withLock { status -> (Admission, (State, State)?) in
            switch status.state {
            case .closed: return (.proceed, nil)
            case .probing: return (.skip, nil)
            case .open:
                guard now() >= status.reopenAt else { return (.skip, nil) }
                status.state = .probing
                return (.probe, (.open, .probing))
            }
        }
        if let (old, new) = changed { transition(old, new) }
        return admission
    }

    /// Records an operation (or probe) that reached Redis and got an answer.
    func succeeded() {
        let changed = status.withLock { status -> State? in
            status.failures = 0
            guard status.state != .closed else { return nil }
            let old = status.state
            status.state = .closed
            status.backoff = 0
            return old
        }
        if let changed { transition(changed, .closed) }
    }

    /// Records a failure to reach Redis (connect, I/O, timeout, or an error reply such as OOM).
    func failed() {
        let changed = status.withLock { status -> State? in
            status.failures += 1
            let old = status.state
            switch status.state {
            case .open: return nil
            case .closed where status.failures < policy.failureThreshold: return nil
            case .closed, .probing:
                let initial = UInt64(policy.initialBackoffMilliseconds) * 1_000_000
                let maximum = UInt64(policy.maximumBackoffMilliseconds) * 1_000_000
                status.backoff = status.backoff == 0 ? initial : min(status.backoff * 2, maximum)
                status.reopenAt = now() + status.backoff
                status.state = .open
                return old
            }
        }
        if let changed { transition(changed, .open) }
    }
}
