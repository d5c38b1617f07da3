import WebImageCodecs
import Synchronization

/// Paces download starts for ``DownloadQueue``: a token per start, refilled over time.
protocol StartPacer: Sendable {
    /// Takes a token for one start: nil when one was available, else how long until the next.
    func take() -> Duration?
    /// Waits `duration` on the pacer's clock; throws when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The token bucket of a ``RequestRateLimit``, on the downloader's clock.
final class TokenBucketPacer<C: Clock<Duration>>: StartPacer {
    private struct Bucket {
        var tokens: Double
        var refilledAt: C.Instant
    }

    private let clock: C
    private let rate: Double
    private let capacity: Double
    private let bucket: Mutex<Bucket>

    /// A full bucket for `limit`; a rate that is not positive and finite never refills past the burst.
    init(limit: RequestRateLimit, clock: C) {
        self.clock = clock
        rate = limit.requestsPerSecond.isFinite ? max(limit.requestsPerSecond, 0) : 0
        capacity = Double(max(limit.burst, 1))
        bucket = Mutex(Bucket(tokens: capacity, refilledAt: clock.now))
    }

    func take() -> Duration? {
        let now = clock.now
        return bucket.withLock { bucket in
            let elapsed = bucket.refilledAt.duration(to: now)
            bucket.tokens = min(capacity, bucket.tokens + Self.seconds(elapsed) * rate)
            bucket.refilledAt = now
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            guard rate > 0 else { return .seconds(3600) }
            // Round up to the nanosecond, so the wake-up never lands just short of the token.
            return .nanoseconds(Int64(((1 - bucket.tokens) / rate * 1e9).rounded(.up)))
        }
    }

    func sleep(for duration: Duration) async throws {
        try await clock.sleep(for: duration)
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}

/// The pacer for `limit` on `clock` (which may be an existential: it is opened here).
func makeStartPacer(limit: RequestRateLimit, clock: some Clock<Duration>) -> any StartPacer {
    TokenBucketPacer(limit: limit, clock: clock)
}
