import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// What shrinks on a memory-pressure signal: the memory cache and the bitmap pool drop the
/// signal's share, least recently used first, and an image manager following a monitor shrinks
/// its cache on each signal.
@Suite("Memory pressure: caches shrink")
struct MemoryPressureShrinkTests {
    /// A cache of `count` images of 4 bytes each, "0" the least recently used.
    private func filledCache(count: Int, weak: Bool = false) -> (MemoryCache, [Image]) {
        let cache = MemoryCache(costLimit: 0, usesWeakCache: weak)
        let images = (0..<count).map { _ in MemoryCacheFixtures.image() }
        for (index, image) in images.enumerated() { cache.set(image, forKey: "\(index)") }
        return (cache, images)
    }

    @Test func halfOfTheMemoryCacheGoesLeastRecentlyUsedFirst() {
        let (cache, _) = filledCache(count: 8)
        _ = cache.get(forKey: "0")
        cache.shrink(by: MemoryPressureSignal.stall(.some).shrinkFraction)
        #expect(cache.totalCost == 16)
        #expect(cache.contains(forKey: "0"), "the entry used last stays")
        #expect(!cache.contains(forKey: "1") && !cache.contains(forKey: "4"))
        #expect(cache.contains(forKey: "5") && cache.contains(forKey: "7"))
        #expect(cache.costLimit == 0, "the limit stays")
    }

    @Test func aFullSignalEmptiesTheMemoryCacheButNotItsWeakReferences() {
        let (cache, images) = filledCache(count: 4, weak: true)
        cache.shrink(by: MemoryPressureSignal.stall(.full).shrinkFraction)
        #expect(cache.count == 0)
        #expect(cache.get(forKey: "2") === images[2], "an image alive elsewhere is found again")
    }

    @Test func halfOfTheBitmapPoolGoesOldestFirst() {
        let pool = BitmapPool(byteLimit: 16 << 20)
        BitmapPool.$current.withValue(pool) {
            var bitmaps: [Bitmap]? = (0..<4).map { BitmapPoolTests.filled(UInt8($0)) }
            _ = bitmaps
            bitmaps = nil
        }
        let bytes = BitmapPoolTests.side * BitmapPoolTests.side * 4
        #expect(pool.statistics.heldBytes == 4 * bytes)
        pool.shrink(by: 0.5)
        #expect(pool.statistics.heldBytes == 2 * bytes)
        pool.shrink(by: 1)
        #expect(pool.statistics.heldBytes == 0)
        #expect(pool.byteLimit == 16 << 20, "the limit stays")
    }

    @Test func aShareOutsideZeroToOneIsClamped() {
        #expect(ShrinkFraction.remaining(of: 100, dropping: 0.25) == 75)
        #expect(ShrinkFraction.remaining(of: 100, dropping: -1) == 100)
        #expect(ShrinkFraction.remaining(of: 100, dropping: .nan) == 100)
        #expect(ShrinkFraction.remaining(of: 100, dropping: 7) == 0)
        #expect(ShrinkFraction.remaining(of: .max, dropping: 0.5) <= .max / 2 + 1)
        #expect(ShrinkFraction.remaining(of: -5, dropping: 0.5) == 0)
    }

    @Test func aManagerFollowingAMonitorShrinksItsCacheOnEachSignal() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pressure-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = ImageCacheConfig()
        config.maxMemoryCost = 0
        let cache = ImageCache(namespace: "pressure", directory: directory, config: config)
        let manager = ImageManager(cache: cache)
        for index in 0..<8 { cache.memoryCache.set(MemoryCacheFixtures.image(), forKey: "\(index)") }
        let source = ScriptedPressureSource()
        let monitor = MemoryPressureMonitor(source: source)
        let observation = manager.followMemoryPressure(monitor)
        source.send(.limit(.high))
        #expect(cache.memoryCache.totalCost == 16)
        source.send(.eased)
        #expect(cache.memoryCache.totalCost == 16, "easing drops nothing")
        source.send(.limit(.oom))
        #expect(cache.memoryCache.count == 0)
        observation.cancel()
        #expect(!source.isRunning)
    }

    @Test func aCachesManagerShrinksEveryCache() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pressure-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = ImageCache(namespace: "a", directory: directory)
        let second = ImageCache(namespace: "b", directory: directory)
        for cache in [first, second] {
            for index in 0..<4 { cache.memoryCache.set(MemoryCacheFixtures.image(), forKey: "\(index)") }
        }
        CachesManager(caches: [first, second]).shrinkMemory(by: 0.5)
        #expect(first.memoryCache.totalCost == 8)
        #expect(second.memoryCache.totalCost == 8)
    }
}
