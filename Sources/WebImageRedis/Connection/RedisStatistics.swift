import Metrics
import Synchronization

/// Counters of what the shared cache tier did, for `/health`, tests and the demo's table; each
/// also increments a swift-metrics counter (`webimage_redis_operations{outcome=…}`), which
/// `webimage serve` prints on `/metrics`.
public struct RedisStatistics: Sendable, Hashable {
    /// Reads that found a valid value.
    public var hits = 0
    /// Reads that found nothing.
    public var misses = 0
    /// Reads that found a value that failed its checks (treated as misses).
    public var corrupt = 0
    /// Operations that failed (connection, timeout, error reply).
    public var errors = 0
    /// Operations skipped because the breaker was open.
    public var skipped = 0
    /// Operations dropped because they waited past their deadline in this process's queue for a
    /// connection (a local burst, not a Redis failure: the breaker does not count them).
    public var queueTimeouts = 0
    /// Values written.
    public var writes = 0
    /// Leases this instance took (it did the work).
    public var leasesTaken = 0
    /// Leases another instance held when this one asked (it waited).
    public var leasesWaited = 0
    /// Waits for another instance's work that ended with its value.
    public var leaseWaitHits = 0
    /// Times the breaker opened.
    public var breakerOpenings = 0
}

/// The counters behind ``RedisStatistics``, under one lock.
final class RedisCounters: Sendable {
    enum Outcome: String, CaseIterable, Sendable {
        case hit, miss, corrupt, error, skipped, write
        case queueTimeout = "queue_timeout"
        case leaseTaken = "lease_taken", leaseWaited = "lease_waited", leaseWaitHit = "lease_wait_hit"
        case breakerOpened = "breaker_opened"
    }

    private let values: Mutex<[Int]>
    private let counters: [Counter]
    private let observer = Mutex<(@Sendable (RedisStatistics) -> Void)?>(nil)

    init(label: String) {
        values = Mutex([Int](repeating: 0, count: Outcome.allCases.count))
        counters = Outcome.allCases.map {
            Counter(label: "webimage_redis_operations", dimensions: [("tier", label), ("outcome", $0.rawValue)])
        }
    }

    func count(_ outcome: Outcome) {
        let index = Outcome.allCases.firstIndex(of: outcome)!
        values.withLock { $0[index] += 1 }
        counters[index].increment()
        if let observer = observer.withLock({ $0 }) { observer(snapshot) }
    }

    func observe(_ body: @escaping @Sendable (RedisStatistics) -> Void) {
        observer.withLock { $0 = body }
    }

    private func value(_ outcome: Outcome) -> Int {
        values.withLock { $0[Outcome.allCases.firstIndex(of: outcome)!] }
    }

    var snapshot: RedisStatistics {
        RedisStatistics(hits: value(.hit), misses: value(.miss), corrupt: value(.corrupt), errors: value(.error),
                        skipped: value(.skipped), queueTimeouts: value(.queueTimeout), writes: value(.write), leasesTaken: value(.leaseTaken),
                        leasesWaited: value(.leaseWaited), leaseWaitHits: value(.leaseWaitHit),
                        breakerOpenings: value(.breakerOpened))
    }
}
