import WebImageCodecs

/// A consistent snapshot of a ``MemoryCache``'s counters and contents, taken under its lock.
public struct MemoryCacheStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Lookups that returned an image (``weakHits`` included).
    public var hits: Int
    /// Lookups that returned nothing (expired entries included).
    public var misses: Int
    /// Hits served from the weak map: the image had been evicted but was still alive elsewhere.
    public var weakHits: Int
    /// Entries removed to respect the cost or count limit, or by ``MemoryCache/trim(toCost:)``.
    public var evictions: Int
    /// Entries dropped because their time to live had run out.
    public var expirations: Int
    /// Sum of the costs of the strongly held entries.
    public var totalCost: Int
    /// Number of strongly held entries.
    public var count: Int

    /// A snapshot with the given counters; ``MemoryCache`` fills them in.
    public init(hits: Int = 0, misses: Int = 0, weakHits: Int = 0, evictions: Int = 0,
                expirations: Int = 0, totalCost: Int = 0, count: Int = 0) {
        self.hits = hits
        self.misses = misses
        self.weakHits = weakHits
        self.evictions = evictions
        self.expirations = expirations
        self.totalCost = totalCost
        self.count = count
    }

    /// Every counter on one line, for logs.
    public var description: String {
        "MemoryCacheStatistics(count: \(count), totalCost: \(totalCost), hits: \(hits), "
            + "misses: \(misses), weakHits: \(weakHits), evictions: \(evictions), "
            + "expirations: \(expirations))"
    }
}
