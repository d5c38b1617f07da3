import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("MemoryCache LRU and limits")
struct MemoryCacheTests {
    func image(_ width: Int = 1) -> Image { MemoryCacheFixtures.image(width: width) }

    @Test func storesAndReturnsTheSameObject() {
        let cache = MemoryCache(costLimit: 0)
        let stored = image(2)
        #expect(cache.set(stored, forKey: "a"))
        #expect(cache.get(forKey: "a") === stored)
        #expect(cache.contains(forKey: "a"))
        #expect(cache.get(forKey: "b") == nil)
        #expect(!cache.contains(forKey: "b"))
        #expect(cache.totalCost == stored.memoryCost)
        #expect(cache.count == 1)
    }

    @Test func evictsLeastRecentlyUsedByCount() {
        let cache = MemoryCache(costLimit: 0, countLimit: 3)
        for key in ["a", "b", "c"] { cache.set(image(1), forKey: key) }
        #expect(cache.get(forKey: "a") != nil)          // a is now the newest: b is oldest
        cache.set(image(1), forKey: "d")
        #expect(!cache.contains(forKey: "b"))
        #expect(cache.contains(forKey: "a") && cache.contains(forKey: "c") && cache.contains(forKey: "d"))
        cache.set(image(1), forKey: "e")                 // c is oldest now
        #expect(!cache.contains(forKey: "c"))
        #expect(cache.count == 3)
        #expect(cache.statistics.evictions == 2)
    }

    @Test func evictsLeastRecentlyUsedByCost() {
        let cache = MemoryCache(costLimit: 100, maxEntryFraction: 1)
        cache.set(image(), forKey: "a", cost: 40)
        cache.set(image(), forKey: "b", cost: 30)
        cache.set(image(), forKey: "c", cost: 30)
        #expect(cache.totalCost == 100)
        _ = cache.get(forKey: "a")                       // order oldest→newest: b, c, a
        cache.set(image(), forKey: "d", cost: 50)        // needs 50 freed: b then c go
        #expect(!cache.contains(forKey: "b") && !cache.contains(forKey: "c"))
        #expect(cache.contains(forKey: "a") && cache.contains(forKey: "d"))
        #expect(cache.totalCost == 90)
        #expect(cache.statistics.evictions == 2)
    }

    @Test func defaultCostIsTheImageMemoryCost() {
        let cache = MemoryCache(costLimit: 0)
        let animated = Image(frames: [ImageFrame(bitmap: Bitmap(width: 3, height: 2), duration: 0.1),
                                      ImageFrame(bitmap: Bitmap(width: 3, height: 2), duration: 0.1)])
        cache.set(animated, forKey: "anim")
        #expect(cache.totalCost == 2 * 3 * 2 * 4)
        cache.set(animated, forKey: "anim", cost: 7)     // replacing re-charges, never double-counts
        #expect(cache.totalCost == 7)
        #expect(cache.count == 1)
    }

    @Test func settingAgainMakesTheKeyNewest() {
        let cache = MemoryCache(costLimit: 0, countLimit: 2)
        cache.set(image(1), forKey: "a")
        cache.set(image(1), forKey: "b")
        let replacement = image(3)
        cache.set(replacement, forKey: "a")
        cache.set(image(1), forKey: "c")
        #expect(!cache.contains(forKey: "b"))
        #expect(cache.get(forKey: "a") === replacement)
    }

    @Test func loweringLimitsEvictsAtOnce() {
        let cache = MemoryCache(costLimit: 0)
        for (index, key) in ["a", "b", "c", "d", "e"].enumerated() {
            cache.set(image(), forKey: key, cost: 10 + index)
        }
        cache.countLimit = 3
        #expect(cache.count == 3)
        #expect(!cache.contains(forKey: "a") && !cache.contains(forKey: "b"))
        cache.costLimit = 20                              // c 12, d 13, e 14 → keep only e
        #expect(cache.count == 1 && cache.contains(forKey: "e"))
        #expect(cache.totalCost == 14)
        #expect(cache.statistics.evictions == 4)
        cache.countLimit = 0
        cache.costLimit = 0
        #expect(cache.count == 1)
    }

    @Test func perEntryCapRefusesLargeImages() {
        let cache = MemoryCache(costLimit: 1000)          // default fraction 0.25 → 250
        #expect(MemoryCache.defaultMaxEntryFraction == 0.25)
        #expect(cache.set(image(), forKey: "fits", cost: 250))
        #expect(!cache.set(image(), forKey: "big", cost: 251))
        #expect(!cache.contains(forKey: "big"))
        #expect(cache.totalCost == 250)
        // Over the cap under an existing key: the stale value goes too.
        #expect(!cache.set(image(), forKey: "fits", cost: 400))
        #expect(!cache.contains(forKey: "fits"))
        cache.maxEntryFraction = 0.5
        #expect(cache.set(image(), forKey: "big", cost: 400))
        cache.maxEntryFraction = 7                        // out of range: the whole limit
        #expect(cache.set(image(), forKey: "huge", cost: 1000))
        #expect(!cache.set(image(), forKey: "huger", cost: 1001))
        #expect(cache.count == 1)                         // huge pushed big out
    }

    @Test func noCapWithoutCostLimit() {
        let cache = MemoryCache(costLimit: 0, maxEntryFraction: 0.01)
        #expect(cache.set(image(), forKey: "a", cost: 1 << 40))
        #expect(cache.contains(forKey: "a"))
    }

    @Test func removeAndRemoveAll() {
        let cache = MemoryCache(costLimit: 0)
        for key in ["a", "b", "c"] { cache.set(image(1), forKey: key) }
        cache.remove(forKey: "b")
        #expect(!cache.contains(forKey: "b"))
        #expect(cache.count == 2 && cache.totalCost == 8)
        cache.remove(forKey: "missing")
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0)
        #expect(cache.get(forKey: "a") == nil)
        cache.set(image(1), forKey: "z")                  // usable after clearing
        #expect(cache.contains(forKey: "z"))
    }

    @Test func trimEvictsOldestUntilUnderTarget() {
        let cache = MemoryCache(costLimit: 0)
        for key in ["a", "b", "c", "d"] { cache.set(image(), forKey: key, cost: 10) }
        _ = cache.get(forKey: "a")
        cache.trim(toCost: cache.totalCost / 2)
        #expect(cache.totalCost == 20)
        #expect(cache.contains(forKey: "d") && cache.contains(forKey: "a"))
        cache.trim(toCost: 0)
        #expect(cache.count == 0)
    }

    @Test func countersTrackHitsMissesAndContents() {
        let cache = MemoryCache(costLimit: 0, countLimit: 2)
        cache.set(image(1), forKey: "a")
        cache.set(image(2), forKey: "b")
        _ = cache.get(forKey: "a")
        _ = cache.get(forKey: "a")
        _ = cache.get(forKey: "nope")
        _ = cache.contains(forKey: "a")                   // contains does not count
        cache.set(image(1), forKey: "c")                  // evicts b
        _ = cache.get(forKey: "b")
        let stats = cache.statistics
        #expect(stats == MemoryCacheStatistics(hits: 2, misses: 2, weakHits: 0, evictions: 1,
                                               expirations: 0, totalCost: 8, count: 2))
    }

    @Test func negativeInputsAreHarmless() {
        let cache = MemoryCache(costLimit: -5, countLimit: -1)
        #expect(cache.costLimit == 0 && cache.countLimit == 0)
        cache.set(image(), forKey: "a", cost: -100)
        #expect(cache.totalCost == 0 && cache.count == 1)
        cache.trim(toCost: -1)
        #expect(cache.count == 1)                         // zero cost is already under any target
    }

    @Test func manySlotsAreRecycled() {
        let cache = MemoryCache(costLimit: 0, countLimit: 10)
        for round in 0..<1000 { cache.set(image(), forKey: "k\(round)", cost: 1) }
        #expect(cache.count == 10 && cache.totalCost == 10)
        for round in 990..<1000 { #expect(cache.contains(forKey: "k\(round)")) }
        #expect(cache.statistics.evictions == 990)
    }
}
