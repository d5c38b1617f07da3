import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("MemoryCache time to live")
struct MemoryCacheExpiryTests {
    func image(_ width: Int = 1) -> Image { MemoryCacheFixtures.image(width: width) }

    @Test func entriesExpireAfterTheirTimeToLive() {
        let clock = ManualClock()
        let cache = MemoryCache(costLimit: 0, timeToLive: .seconds(10), clock: { clock.now })
        cache.set(image(1), forKey: "a")
        clock.advance(by: .seconds(4))
        cache.set(image(1), forKey: "b")
        clock.advance(by: .seconds(5))
        #expect(cache.get(forKey: "a") != nil)            // 9 s old
        clock.advance(by: .seconds(1))
        #expect(cache.get(forKey: "a") == nil)            // 10 s old: expired, dropped
        #expect(cache.contains(forKey: "b"))              // 6 s old
        #expect(cache.count == 1 && cache.totalCost == 4)
        let stats = cache.statistics
        #expect(stats.expirations == 1 && stats.misses == 1 && stats.hits == 1)
    }

    @Test func accessDoesNotExtendLifeButSettingAgainDoes() {
        let clock = ManualClock()
        let cache = MemoryCache(costLimit: 0, timeToLive: .milliseconds(100), clock: { clock.now })
        cache.set(image(1), forKey: "a")
        clock.advance(by: .milliseconds(60))
        #expect(cache.get(forKey: "a") != nil)
        clock.advance(by: .milliseconds(60))
        #expect(!cache.contains(forKey: "a"))
        cache.set(image(1), forKey: "a")
        clock.advance(by: .milliseconds(60))
        #expect(cache.contains(forKey: "a"))
    }

    @Test func removeExpiredSweepsEverything() {
        let clock = ManualClock()
        let cache = MemoryCache(costLimit: 0, timeToLive: .seconds(1), clock: { clock.now })
        for key in ["a", "b", "c"] { cache.set(image(1), forKey: key) }
        clock.advance(by: .seconds(2))
        cache.set(image(1), forKey: "fresh")
        cache.removeExpired()
        #expect(cache.count == 1 && cache.contains(forKey: "fresh"))
        #expect(cache.statistics.expirations == 3)
    }

    @Test func timeToLiveCanBeSetLaterAndCleared() {
        let clock = ManualClock()
        let cache = MemoryCache(costLimit: 0, clock: { clock.now })
        cache.set(image(1), forKey: "a")
        clock.advance(by: .seconds(3600))
        #expect(cache.contains(forKey: "a"))              // no TTL: forever
        cache.timeToLive = .seconds(60)
        #expect(cache.timeToLive == .seconds(60))
        #expect(cache.get(forKey: "a") == nil)
    }

    @Test func weakEntriesExpireToo() {
        let clock = ManualClock()
        let cache = MemoryCache(costLimit: 0, countLimit: 1, timeToLive: .seconds(5),
                                usesWeakCache: true, clock: { clock.now })
        let held = image(1)
        cache.set(held, forKey: "a")
        cache.set(image(1), forKey: "b")                  // evicts a; weak map still has it
        clock.advance(by: .seconds(6))
        #expect(cache.get(forKey: "a") == nil)
        #expect(cache.statistics.weakHits == 0)
        withExtendedLifetime(held) {}
    }
}
