import WebImageCodecs
import Foundation

/// When and how often a failed download is tried again. Off unless set (SDWebImage has no
/// retries): on ``DownloaderConfig/retryStrategy`` for every download, or per request on
/// ``WebImageContext/retryStrategy``.
///
/// Only GET requests are retried, and only for failures a later attempt can fix:
///
/// | failure | retried |
/// | --- | --- |
/// | ``WebImageError/Code/connectionFailed`` (refused, reset, closed mid-body) | yes |
/// | ``WebImageError/Code/timedOut`` | yes |
/// | HTTP 408, 429, 500, 502, 503, 504 | yes |
/// | any other status, bad or undecodable data, size or redirect limits, TLS failures | no |
/// | ``WebImageError/Code/cancelled`` | no |
///
/// Between attempts the download waits a backoff delay, with full jitter when ``jitter`` is on
/// (a uniform pick between 0 and the delay, so many clients do not retry in step). A 429 or 503
/// with a `Retry-After` header (seconds or an HTTP date) waits that long instead. Every wait is
/// capped at ``maxDelay``. Callers see a retry only through progress (which starts again) and
/// ``DownloadMetrics/retryCount``; cancelling during a wait ends the load at once with
/// ``WebImageError/Code/cancelled``.
public struct RetryStrategy: Sendable, Equatable {
    /// How the delay before retry *n* (1 for the first retry) grows.
    public enum Backoff: Sendable, Equatable {
        /// The same delay, in seconds, before every retry.
        case fixed(TimeInterval)
        /// `base × multiplier^(n−1)` seconds before retry *n*.
        case exponential(base: TimeInterval, multiplier: Double)

        /// `base` seconds, doubling with every retry.
        public static func exponential(base: TimeInterval) -> Backoff {
            .exponential(base: base, multiplier: 2)
        }
    }

    /// Attempts after the first (0 means none).
    public var maxRetries: Int
    /// The delay before each retry, before jitter and the cap.
    public var backoff: Backoff
    /// Full jitter: wait a uniform random time between 0 and the backoff delay (default on).
    public var jitter: Bool
    /// The longest any one wait may be, in seconds, `Retry-After` included (default 30).
    public var maxDelay: TimeInterval

    /// A strategy of `maxRetries` retries (default 2) after exponential backoff from 0.5 s.
    public init(maxRetries: Int = 2, backoff: Backoff = .exponential(base: 0.5), jitter: Bool = true,
                maxDelay: TimeInterval = 30) {
        self.maxRetries = maxRetries
        self.backoff = backoff
        self.jitter = jitter
        self.maxDelay = maxDelay
    }

    /// The HTTP statuses a later attempt may get past.
    public static let retriedStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// Whether a download that failed with `error` may be tried again.
    public static func isRetriable(_ error: WebImageError) -> Bool {
        switch error.code {
        case .connectionFailed, .timedOut:
            return true
        case .invalidDownloadStatusCode:
            return error.httpStatus.map(retriedStatusCodes.contains) ?? false
        default:
            return false
        }
    }

    /// Seconds to wait before retry `retry` (1-based). `retryAfter` is the server's `Retry-After`
    /// in seconds, already parsed; it replaces the backoff. `random` picks the jitter.
    public func delay(beforeRetry retry: Int, retryAfter: TimeInterval? = nil,
                      using random: inout some RandomNumberGenerator) -> TimeInterval {
        let cap = max(0, maxDelay.isFinite ? maxDelay : 0)
        if let retryAfter, retryAfter.isFinite, retryAfter >= 0 { return min(retryAfter, cap) }
        let planned: TimeInterval
        switch backoff {
        case .fixed(let seconds):
            planned = seconds
        case .exponential(let base, let multiplier):
            planned = base * pow(max(multiplier, 1), Double(max(retry, 1) - 1))
        }
        let capped = min(planned.isFinite ? max(planned, 0) : cap, cap)
        guard jitter, capped > 0 else { return capped }
        return Double.random(in: 0...capped, using: &random)
    }

    /// ``delay(beforeRetry:retryAfter:using:)`` with the system's random numbers.
    public func delay(beforeRetry retry: Int, retryAfter: TimeInterval? = nil) -> TimeInterval {
        var random = SystemRandomNumberGenerator()
        return delay(beforeRetry: retry, retryAfter: retryAfter, using: &random)
    }
}
