import WebImageCodecs

/// How fast a downloader may start requests: a token bucket that holds up to ``burst`` starts and
/// refills at ``requestsPerSecond``. Downloads beyond it wait in the queue, in priority order, for
/// the next token. It limits starts, not downloads in flight (that is
/// ``DownloaderConfig/maxConcurrentDownloads``): a burst of cache misses (a feed scrolled fast, a
/// prefetch of thousands of URLs) reaches an origin as a steady rate instead of all at once.
public struct RequestRateLimit: Sendable, Equatable {
    /// Starts per second once the burst is spent.
    public var requestsPerSecond: Double
    /// Starts allowed at once after a quiet period (at least 1).
    public var burst: Int

    /// A limit of `requestsPerSecond` (default 80) with bursts of `burst` (default 25).
    public init(requestsPerSecond: Double = 80, burst: Int = 25) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
    }
}
