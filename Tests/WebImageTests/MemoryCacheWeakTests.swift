import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("MemoryCache weak cache")
struct MemoryCacheWeakTests {
    func image(_ width: Int = 1) -> Image { MemoryCacheFixtures.image(width: width) }

    @Test func evictedImageHeldElsewhereComesBackWhenEnabled() {
        let cache = MemoryCache(costLimit: 0, countLimit: 1, usesWeakCache: true)
        let held = image(3)
        cache.set(held, forKey: "held")
        cache.set(image(1), forKey: "other")              // evicts "held"
        #expect(cache.count == 1)
        #expect(cache.contains(forKey: "held"))
        #expect(cache.get(forKey: "held") === held)
        // It was re-inserted with its cost, which in turn evicted "other".
        #expect(cache.count == 1 && cache.totalCost == held.memoryCost)
        #expect(cache.get(forKey: "held") === held)
        let stats = cache.statistics
        #expect(stats.weakHits == 1 && stats.hits == 2 && stats.evictions == 2)
    }

    @Test func evictedImageNobodyHoldsIsGone() {
        let cache = MemoryCache(costLimit: 0, countLimit: 1, usesWeakCache: true)
        cache.set(image(3), forKey: "dropped")            // only the cache holds it
        cache.set(image(1), forKey: "other")
        #expect(cache.get(forKey: "dropped") == nil)
        #expect(!cache.contains(forKey: "dropped"))
    }

    @Test func disabledByDefault() {
        let cache = MemoryCache(costLimit: 0, countLimit: 1)
        #expect(!cache.usesWeakCache)
        let held = image(3)
        cache.set(held, forKey: "held")
        cache.set(image(1), forKey: "other")
        #expect(cache.get(forKey: "held") == nil)
        withExtendedLifetime(held) {}
    }

    @Test func memoryWarningKeepsOnlyHeldImagesAndOnlyWithWeakCache() {
        for weak in [false, true] {
            let cache = MemoryCache(costLimit: 0, countLimit: 5, usesWeakCache: weak)
            let held = image(2)
            cache.set(held, forKey: "held")
            cache.set(image(2), forKey: "loose")
            cache.removeAll(keepingWeak: true)
            #expect(cache.count == 0)
            #expect((cache.get(forKey: "held") === held) == weak)
            #expect(cache.get(forKey: "loose") == nil)
            withExtendedLifetime(held) {}
        }
    }

    @Test func trimmedImagesComeBackWhileHeld() {
        let cache = MemoryCache(costLimit: 0, usesWeakCache: true)
        let held = image(2)
        cache.set(held, forKey: "held")
        cache.trim(toCost: 0)
        #expect(cache.count == 0)
        #expect(cache.get(forKey: "held") === held)
        #expect(cache.count == 1)
    }

    @Test func removeAndRemoveAllForgetWeakReferences() {
        let cache = MemoryCache(costLimit: 0, usesWeakCache: true)
        let held = image(2)
        cache.set(held, forKey: "a")
        cache.remove(forKey: "a")
        #expect(cache.get(forKey: "a") == nil)
        cache.set(held, forKey: "b")
        cache.removeAll()
        #expect(cache.get(forKey: "b") == nil)
        withExtendedLifetime(held) {}
    }

    @Test func turningItOffForgetsWeakReferences() {
        let cache = MemoryCache(costLimit: 0, countLimit: 1, usesWeakCache: true)
        let held = image(2)
        cache.set(held, forKey: "a")
        cache.set(image(1), forKey: "b")
        cache.usesWeakCache = false
        cache.usesWeakCache = true
        #expect(cache.get(forKey: "a") == nil)
        withExtendedLifetime(held) {}
    }

    @Test func replacedValueIsNotResurrected() {
        let cache = MemoryCache(costLimit: 100, countLimit: 1, maxEntryFraction: 0.5, usesWeakCache: true)
        let old = image(2)
        cache.set(old, forKey: "a")
        #expect(!cache.set(image(), forKey: "a", cost: 80))   // over the cap: not cached
        #expect(cache.get(forKey: "a") == nil)                 // and the old value is not revived
        withExtendedLifetime(old) {}
    }

    @Test func deadWeakReferencesAreSwept() {
        let cache = MemoryCache(costLimit: 0, countLimit: 1, usesWeakCache: true)
        for round in 0..<10_000 { cache.set(image(1), forKey: "k\(round)") }
        #expect(cache.count == 1)
        #expect(cache.weakReferenceCount < 200)           // not 10 000: dead ones were dropped
        let revived = (0..<9_999).filter { cache.get(forKey: "k\($0)") != nil }
        #expect(revived.isEmpty)
    }
}
