import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("MemoryCache concurrency")
struct MemoryCacheConcurrencyTests {
    @Test func manyTasksKeepCountersConsistent() async {
        let cache = MemoryCache(costLimit: 4 * 64, countLimit: 50, maxEntryFraction: 1,
                                usesWeakCache: true)
        let tasks = 8, rounds = 2_000
        let images = (0..<100).map { _ in MemoryCacheFixtures.image(width: 1) }
        let gets = await withTaskGroup(of: Int.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var gets = 0
                    for round in 0..<rounds {
                        let key = "k\((task * 31 + round * 7) % 100)"
                        switch round % 5 {
                        case 0, 1: cache.set(images[(task + round) % 100], forKey: key)
                        case 2: cache.remove(forKey: key)
                        case 3: if round % 100 == 3 { cache.countLimit = 20 + round % 40 }
                                _ = cache.contains(forKey: key)
                        default: _ = cache.get(forKey: key); gets += 1
                        }
                        if round % 500 == 0 { cache.trim(toCost: cache.totalCost / 2) }
                    }
                    return gets
                }
            }
            return await group.reduce(0, +)
        }
        let stats = cache.statistics
        #expect(stats.hits + stats.misses == gets)
        #expect(stats.count <= cache.countLimit && stats.count <= 64)
        #expect(stats.totalCost == stats.count * 4)
        cache.removeAll()
        #expect(cache.statistics.count == 0 && cache.statistics.totalCost == 0)
    }
}
