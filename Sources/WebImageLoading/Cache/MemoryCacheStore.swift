import WebImageCodecs

/// One strongly held entry of the memory cache, living in a slot of ``MemoryCacheStore/entries``.
///
/// Entries form an intrusive doubly linked list by slot index (no per-node allocation): `newer`
/// points toward the most recently used entry, `older` toward the least recently used one.
struct MemoryCacheEntry {
    var key: String
    var image: Image?
    var cost: Int
    var storedAt: ContinuousClock.Instant
    var newer: Int
    var older: Int
}

/// A weak reference to an image that was stored, so it can be found again after eviction while
/// something else keeps it alive (SDWebImage's `shouldUseWeakMemoryCache`).
struct WeakCacheEntry {
    weak var image: Image?
    var cost: Int
    var storedAt: ContinuousClock.Instant
}

/// The unsynchronised state of a ``MemoryCache``: a strict LRU list plus the weak map and counters.
///
/// Every operation is O(1) apart from evictions (O(evicted)) and the occasional weak-map sweep.
/// The hit path (`image(forKey:)` finding a fresh entry) does one dictionary lookup and relinks
/// two indices; it never allocates. Not thread-safe: ``MemoryCache`` guards it with a `Mutex`.
struct MemoryCacheStore {
    static let none = -1

    private var entries: [MemoryCacheEntry] = []
    private var freeSlots: [Int] = []
    private var slotByKey: [String: Int] = [:]
    /// Most recently used slot, or `none`.
    private var newest = none
    /// Least recently used slot (the next to evict), or `none`.
    private var oldest = none
    private var weakEntries: [String: WeakCacheEntry] = [:]
    private var weakSweepThreshold = 64

    var costLimit: Int { didSet { evictToLimits() } }
    var countLimit: Int { didSet { evictToLimits() } }
    var maxEntryFraction: Double
    var timeToLive: Duration?
    var usesWeakCache: Bool { didSet { if !usesWeakCache { weakEntries = [:] } } }
    let now: @Sendable () -> ContinuousClock.Instant

    private(set) var totalCost = 0
    private(set) var hits = 0
    private(set) var weakHits = 0
    private(set) var misses = 0
    private(set) var evictions = 0
    private(set) var expirations = 0

    init(costLimit: Int, countLimit: Int, maxEntryFraction: Double, timeToLive: Duration?,
         usesWeakCache: Bool, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.maxEntryFraction = maxEntryFraction
        self.timeToLive = timeToLive
        self.usesWeakCache = usesWeakCache
        self.now = now
    }

    var count: Int { slotByKey.count }
    /// Number of keys in the weak map, dead references included until the next sweep.
    var weakCount: Int { weakEntries.count }

    // MARK: Reading

    /// The image for `key`, refreshing its recency; counts a hit or a miss.
    mutating func image(forKey key: String) -> Image? {
        if let slot = slotByKey[key] {
            // Without a time to live, the entry is not read before the hit (no copy of it).
            if timeToLive != nil, isExpired(entries[slot].storedAt) {
                unlink(slot)
                weakEntries[key] = nil
                expirations += 1
                misses += 1
                return nil
            }
            moveToNewest(slot)
            hits += 1
            return entries[slot].image
        }
        if let image = reviveFromWeak(key) {
            hits += 1
            weakHits += 1
            return image
        }
        misses += 1
        return nil
    }

    /// True when `image(forKey:)` would return an image; leaves recency and counters alone.
    mutating func contains(_ key: String) -> Bool {
        if let slot = slotByKey[key] {
            if !isExpired(entries[slot].storedAt) { return true }
            unlink(slot)
            weakEntries[key] = nil
            expirations += 1
            return false
        }
        guard usesWeakCache, let weak = weakEntries[key], weak.image != nil else { return false }
        return !isExpired(weak.storedAt)
    }

    // MARK: Writing

    /// Stores `image` as the most recent entry, then evicts to the limits. Returns false (and
    /// drops any older value for `key`) when the image is over the per-entry cap.
    mutating func set(_ image: Image, forKey key: String, cost: Int) -> Bool {
        if let slot = slotByKey[key] { unlink(slot) }
        let cost = max(0, cost)
        guard admits(cost: cost) else {
            weakEntries[key] = nil
            return false
        }
        let storedAt = now()
        insertNewest(key: key, image: image, cost: cost, storedAt: storedAt)
        if usesWeakCache {
            weakEntries[key] = WeakCacheEntry(image: image, cost: cost, storedAt: storedAt)
            sweepWeakEntriesIfNeeded()
        }
        evictToLimits()
        return true
    }

    mutating func remove(_ key: String) {
        if let slot = slotByKey[key] { unlink(slot) }
        weakEntries[key] = nil
    }

    /// Drops every strong entry; the weak map survives when `keepingWeak` (memory-pressure mode).
    mutating func removeAll(keepingWeak: Bool) {
        entries = []
        freeSlots = []
        slotByKey = [:]
        newest = Self.none
        oldest = Self.none
        totalCost = 0
        if !keepingWeak {
            weakEntries = [:]
            weakSweepThreshold = 64
        }
    }

    /// Evicts least recently used entries until the total cost is at most `targetCost`.
    mutating func trim(toCost targetCost: Int) {
        while oldest != Self.none && totalCost > max(0, targetCost) { evictOldest() }
    }

    /// Drops every entry (strong or weak) whose time to live has run out.
    mutating func removeExpired() {
        guard timeToLive != nil else { return }
        var slot = oldest
        while slot != Self.none {
            let newer = entries[slot].newer
            if isExpired(entries[slot].storedAt) {
                weakEntries[entries[slot].key] = nil
                unlink(slot)
                expirations += 1
            }
            slot = newer
        }
        weakEntries = weakEntries.filter { $0.value.image != nil && !isExpired($0.value.storedAt) }
    }

    // MARK: Policy

    /// The per-entry cap: with a cost limit, one image may take at most `maxEntryFraction` of it.
    private func admits(cost: Int) -> Bool {
        guard costLimit > 0 else { return true }
        return Double(cost) <= Self.effectiveFraction(maxEntryFraction) * Double(costLimit)
    }

    /// Fractions outside (0, 1] (and NaN) mean "up to the whole cost limit".
    static func effectiveFraction(_ fraction: Double) -> Double {
        fraction > 0 && fraction <= 1 ? fraction : 1
    }

    private func isExpired(_ storedAt: ContinuousClock.Instant) -> Bool {
        guard let timeToLive else { return false }
        return now() - storedAt >= timeToLive
    }

    private mutating func evictToLimits() {
        while oldest != Self.none
            && ((costLimit > 0 && totalCost > costLimit) || (countLimit > 0 && count > countLimit)) {
            evictOldest()
        }
    }

    private mutating func evictOldest() {
        unlink(oldest)
        evictions += 1
    }

    /// Re-inserts a weakly remembered image that is still alive elsewhere, with its original cost
    /// and storage time; forgets the key when the image is gone or expired.
    private mutating func reviveFromWeak(_ key: String) -> Image? {
        guard usesWeakCache, let weak = weakEntries[key] else { return nil }
        guard let image = weak.image, !isExpired(weak.storedAt) else {
            if weak.image != nil { expirations += 1 }
            weakEntries[key] = nil
            return nil
        }
        if admits(cost: weak.cost) {
            insertNewest(key: key, image: image, cost: weak.cost, storedAt: weak.storedAt)
            evictToLimits()
        }
        return image
    }

    /// Forgets weak entries whose images have died, once the map has doubled since the last sweep.
    private mutating func sweepWeakEntriesIfNeeded() {
        guard weakEntries.count > weakSweepThreshold else { return }
        weakEntries = weakEntries.filter { $0.value.image != nil }
        weakSweepThreshold = max(64, weakEntries.count * 2)
    }

    // MARK: Linked list

    private mutating func insertNewest(key: String, image: Image, cost: Int,
                                       storedAt: ContinuousClock.Instant) {
        let entry = MemoryCacheEntry(key: key, image: image, cost: cost, storedAt: storedAt,
                                     newer: Self.none, older: newest)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            entries[slot] = entry
        } else {
            slot = entries.count
            entries.append(entry)
        }
        if newest != Self.none { entries[newest].newer = slot }
        newest = slot
        if oldest == Self.none { oldest = slot }
        slotByKey[key] = slot
        totalCost += cost
    }

    private mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        detach(slot)
        entries[slot].newer = Self.none
        entries[slot].older = newest
        if newest != Self.none { entries[newest].newer = slot }
        newest = slot
        if oldest == Self.none { oldest = slot }
    }

    /// Takes `slot` out of the list, leaving its contents in place.
    private mutating func detach(_ slot: Int) {
        let newer = entries[slot].newer
        let older = entries[slot].older
        if newer != Self.none { entries[newer].older = older } else { newest = older }
        if older != Self.none { entries[older].newer = newer } else { oldest = newer }
    }

    /// Removes `slot` from the list and the key index, releases its image and recycles the slot.
    private mutating func unlink(_ slot: Int) {
        detach(slot)
        slotByKey[entries[slot].key] = nil
        totalCost -= entries[slot].cost
        entries[slot].image = nil
        entries[slot].key = ""
        entries[slot].cost = 0
        freeSlots.append(slot)
    }
}
