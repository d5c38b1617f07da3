import WebImageCodecs
import Synchronization

/// An in-memory cache of decoded images: a strict least-recently-used list bounded by total cost
/// and entry count, safe to share between tasks.
///
/// Unlike SDWebImage's `NSCache`-based `SDMemoryCache`, eviction is deterministic: when a limit is
/// passed, the least recently *used* entry goes first (``get(forKey:)`` refreshes recency; setting a
/// key again makes it the newest).
///
/// - **Cost** is ``Image/memoryCost`` (bytes of all frames) unless given to ``set(_:forKey:cost:)``.
/// - **Limits** (`0` = unlimited) can be changed at any time; shrinking one evicts at once.
/// - **Per-entry cap**: with a cost limit, an image costing more than ``maxEntryFraction`` × the
///   limit is not cached at all, so one huge image cannot flush everything else.
/// - **Time to live** (optional): an entry older than ``timeToLive`` (counted from when it was
///   set) reads as a miss and is dropped.
/// - **Weak cache** (optional, off by default, like `shouldUseWeakMemoryCache`): evicted or
///   trimmed images still alive elsewhere are found again by ``get(forKey:)`` and re-inserted with
///   their cost. ``remove(forKey:)`` and ``removeAll()`` forget them too.
///
/// Every call takes one lock; a hit allocates nothing.
public final class MemoryCache: Sendable {
    /// The per-entry cap used when none is given: one image may take a quarter of the cost limit.
    public static let defaultMaxEntryFraction = 0.25

    /// The cost limit used when none is given, computed once per process:
    /// `min(ProcessMemoryLimit().availableBytes / 4, 1 GiB)` — a quarter of the memory this process
    /// may use (its cgroup v2 `memory.max`, or physical RAM when lower or when there is no limit),
    /// never more than 1 GiB. See ``defaultCostLimit(availableMemory:)``.
    public static let defaultCostLimit = defaultCostLimit(
        availableMemory: ProcessMemoryLimit().availableBytes)

    /// The default-cost-limit rule for a given amount of usable memory in bytes: a quarter of it,
    /// capped at 1 GiB (and at least 1 byte, since 0 would mean unlimited).
    public static func defaultCostLimit(availableMemory: UInt64) -> Int {
        let quarter = availableMemory / 4
        return Int(max(1, min(quarter, 1 << 30)))
    }

    private let store: Mutex<MemoryCacheStore>

    /// Creates a cache.
    /// - Parameters:
    ///   - costLimit: Most total cost (bytes) kept; `0` = unlimited.
    ///   - countLimit: Most entries kept; `0` = unlimited.
    ///   - maxEntryFraction: Share of `costLimit` one image may take (values outside (0, 1] = 1).
    ///   - timeToLive: How long an entry stays valid after being set; `nil` = forever.
    ///   - usesWeakCache: Whether evicted images still alive elsewhere can be found again.
    ///   - clock: The monotonic time source for `timeToLive` (injectable for tests).
    public init(costLimit: Int = MemoryCache.defaultCostLimit, countLimit: Int = 0,
                maxEntryFraction: Double = MemoryCache.defaultMaxEntryFraction,
                timeToLive: Duration? = nil, usesWeakCache: Bool = false,
                clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        store = Mutex(MemoryCacheStore(
            costLimit: max(0, costLimit), countLimit: max(0, countLimit),
            maxEntryFraction: maxEntryFraction, timeToLive: timeToLive,
            usesWeakCache: usesWeakCache, now: clock))
    }

    // MARK: Entries

    /// The image stored for `key`, or nil; a hit makes the entry the most recently used.
    public func get(forKey key: String) -> Image? {
        store.withLock { $0.image(forKey: key) }
    }

    /// Stores `image` for `key` as the most recently used entry, replacing any previous one, then
    /// evicts least recently used entries until the limits hold.
    /// - Parameter cost: The entry's cost; `nil` = ``Image/memoryCost``.
    /// - Returns: False when the image is over the per-entry cap and was not cached (any previous
    ///   entry for `key` is removed in that case too).
    @discardableResult
    public func set(_ image: Image, forKey key: String, cost: Int? = nil) -> Bool {
        let cost = cost ?? image.memoryCost
        return store.withLock { $0.set(image, forKey: key, cost: cost) }
    }

    /// True when ``get(forKey:)`` would return an image; does not change recency or counters.
    public func contains(forKey key: String) -> Bool {
        store.withLock { $0.contains(key) }
    }

    /// Removes the entry for `key`, weak reference included.
    public func remove(forKey key: String) {
        store.withLock { $0.remove(key) }
    }

    /// Removes every entry, weak references included.
    public func removeAll() {
        store.withLock { $0.removeAll(keepingWeak: false) }
    }

    /// Removes every strong entry. With `keepingWeak`, images still alive elsewhere stay findable
    /// through the weak cache (SDWebImage's response to a memory warning).
    public func removeAll(keepingWeak: Bool) {
        store.withLock { $0.removeAll(keepingWeak: keepingWeak) }
    }

    /// Evicts least recently used entries until the total cost is at most `cost` (for memory
    /// pressure: `trim(toCost: totalCost / 2)` halves the cache). Evicted entries stay in the weak
    /// cache when it is on.
    public func trim(toCost cost: Int) {
        store.withLock { $0.trim(toCost: cost) }
    }

    /// Drops every entry whose time to live has run out (expired entries are otherwise dropped
    /// lazily, when looked up).
    public func removeExpired() {
        store.withLock { $0.removeExpired() }
    }

    // MARK: Settings

    /// Most total cost kept; `0` = unlimited. Lowering it evicts at once.
    public var costLimit: Int {
        get { store.withLock { $0.costLimit } }
        set { store.withLock { $0.costLimit = max(0, newValue) } }
    }

    /// Most entries kept; `0` = unlimited. Lowering it evicts at once.
    public var countLimit: Int {
        get { store.withLock { $0.countLimit } }
        set { store.withLock { $0.countLimit = max(0, newValue) } }
    }

    /// Share of ``costLimit`` a single image may take; larger images are not cached. Values
    /// outside (0, 1] mean the whole limit. Applies to later `set` calls.
    public var maxEntryFraction: Double {
        get { store.withLock { $0.maxEntryFraction } }
        set { store.withLock { $0.maxEntryFraction = newValue } }
    }

    /// How long an entry stays valid after it was set; `nil` = forever. Applies to every entry,
    /// existing ones included, from the next lookup on.
    public var timeToLive: Duration? {
        get { store.withLock { $0.timeToLive } }
        set { store.withLock { $0.timeToLive = newValue } }
    }

    /// Whether evicted images still alive elsewhere can be found again. Turning it off forgets
    /// every weak reference; turning it on covers images set from then on.
    public var usesWeakCache: Bool {
        get { store.withLock { $0.usesWeakCache } }
        set { store.withLock { $0.usesWeakCache = newValue } }
    }

    // MARK: Counters

    /// The counters and contents, read together under the lock.
    public var statistics: MemoryCacheStatistics {
        store.withLock { store in
            MemoryCacheStatistics(hits: store.hits, misses: store.misses, weakHits: store.weakHits,
                                  evictions: store.evictions, expirations: store.expirations,
                                  totalCost: store.totalCost, count: store.count)
        }
    }

    /// Number of strongly held entries.
    public var count: Int { store.withLock { $0.count } }

    /// Sum of the costs of the strongly held entries.
    public var totalCost: Int { store.withLock { $0.totalCost } }

    /// Keys in the weak map, dead references included until the next sweep (for tests).
    var weakReferenceCount: Int { store.withLock { $0.weakCount } }
}
