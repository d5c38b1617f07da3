import Dispatch
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// When a query completes synchronously and when asynchronously (SDWebImage's rules, listed on
/// `ImageCache.queryImage(forKey:options:context:cacheType:completion:)`), checked by whether the
/// completion has run when `queryImage` returns, with the I/O queue held so nothing can race.
@Suite("ImageCache query rules")
struct ImageCacheQueryRuleTests {
    let key = "http://example.com/rules.png"

    /// Runs one query with the I/O queue held; returns (ran before return, token, result).
    func query(_ harness: ImageCacheHarness, key: String?, options: WebImageOptions = [],
               context: WebImageContext = .none, cacheType: ImageCacheType = .all)
        -> (synchronous: Bool, token: (any ImageCacheOperation)?, calls: CallRecorder<ImageCacheQueryResult>) {
        let calls = CallRecorder<ImageCacheQueryResult>()
        let gate = harness.blockIO()
        let token = harness.cache.queryImage(forKey: key, options: options, context: context,
                                             cacheType: cacheType) { calls.record($0) }
        let synchronous = calls.count == 1
        gate.open()
        harness.drain()
        #expect(calls.count == 1, "the completion runs exactly once")
        return (synchronous, token, calls)
    }

    @Test func nilKeyAndTypeNoneCompleteSynchronouslyWithNothing() {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        for (key, type) in [(nil, ImageCacheType.all), (key, .none)] as [(String?, ImageCacheType)] {
            let (synchronous, token, calls) = query(harness, key: key, cacheType: type)
            #expect(synchronous)
            #expect(token == nil)
            #expect(calls.last?.cacheType == ImageCacheType.none)
            #expect(calls.last?.image == nil)
        }
    }

    @Test func memoryOnlyMissIsSynchronousAndReportsMemory() {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let (synchronous, token, calls) = query(harness, key: key, cacheType: .memory)
        #expect(synchronous)
        #expect(token == nil)
        #expect(calls.last?.cacheType == .memory)
        #expect(calls.last?.image == nil)
    }

    @Test func memoryHitIsSynchronous() {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        harness.cache.storeImageToMemory(ImageCacheFixtures.opaque(), forKey: key)
        let (synchronous, token, calls) = query(harness, key: key)
        #expect(synchronous)
        #expect(token == nil)
        #expect(calls.last?.cacheType == .memory)
    }

    @Test func memoryHitWithMemoryDataReadsTheDataAsynchronously() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let image = ImageCacheFixtures.opaque()
        let data = try ImageCacheFixtures.pngData()
        harness.cache.storeImageToMemory(image, forKey: key)
        try harness.cache.storeImageDataToDisk(data, forKey: key)
        let (synchronous, token, calls) = query(harness, key: key, options: .queryMemoryData)
        #expect(!synchronous)
        #expect(token != nil)
        #expect(calls.last?.image === image)
        #expect(calls.last?.data == data)
        #expect(calls.last?.cacheType == .disk)
    }

    @Test func memoryHitWithMemoryDataSyncIsSynchronous() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let image = ImageCacheFixtures.opaque()
        let data = try ImageCacheFixtures.pngData()
        harness.cache.storeImageToMemory(image, forKey: key)
        try harness.cache.storeImageDataToDisk(data, forKey: key)
        // The I/O queue is not held here: a synchronous step would wait for it.
        let calls = CallRecorder<ImageCacheQueryResult>()
        harness.cache.queryImage(forKey: key, options: [.queryMemoryData, .queryMemoryDataSync],
                                 context: .none, cacheType: .all) { calls.record($0) }
        #expect(calls.count == 1)
        #expect(calls.last?.image === image)
        #expect(calls.last?.data == data)
    }

    @Test func diskMissIsAsynchronousUnlessDiskDataSync() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let (synchronous, token, calls) = query(harness, key: key)
        #expect(!synchronous)
        #expect(token is ImageCacheQueryToken)
        #expect(calls.last?.cacheType == .disk)
        #expect(calls.last?.image?.format == .png)

        harness.cache.clearMemory()
        let syncCalls = CallRecorder<ImageCacheQueryResult>()
        harness.cache.queryImage(forKey: key, options: .queryDiskDataSync, context: .none,
                                 cacheType: .all) { syncCalls.record($0) }
        #expect(syncCalls.count == 1)
        #expect(syncCalls.last?.image?.format == .png)
    }

    @Test func diskTypeSkipsMemoryAndReportsDiskOnAMiss() {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        harness.cache.storeImageToMemory(ImageCacheFixtures.opaque(), forKey: key)
        let (synchronous, _, calls) = query(harness, key: key, cacheType: .disk)
        #expect(!synchronous)
        #expect(calls.last?.image == nil)
        #expect(calls.last?.cacheType == .disk)
    }

    @Test func cancelOnTheCallbackQueueCallsBackOnceSynchronously() {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let gate = harness.blockIO()
        let calls = CallRecorder<ImageCacheQueryResult>()
        let token = harness.cache.queryImage(forKey: "never-stored", options: [], context: .none,
                                             cacheType: .all) { calls.record($0) }
        #expect(calls.count == 0)
        harness.callbacks.sync {
            token?.cancel()
            #expect(calls.count == 1, "called back inside cancel()")
        }
        token?.cancel()
        gate.open()
        harness.drain()
        #expect(calls.count == 1)
        #expect(calls.last?.cacheType == ImageCacheType.none)
        #expect((token as? ImageCacheQueryToken)?.isCancelled == true)
    }

    @Test func cancelElsewhereCallsBackThroughTheQueueAndDropsTheLateHit() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let gate = harness.blockIO()
        let calls = CallRecorder<ImageCacheQueryResult>()
        let token = harness.cache.queryImage(forKey: key, options: [], context: .none,
                                             cacheType: .all) { calls.record($0) }
        token?.cancel()
        gate.open()
        harness.drain()
        #expect(calls.count == 1)
        #expect(calls.last?.image == nil)
        #expect(calls.last?.cacheType == ImageCacheType.none)
        // Cancelled before it ran, the disk step did no work: nothing was promoted.
        #expect(harness.cache.imageFromMemoryCache(forKey: key) == nil)
    }

    @Test func cancellingTheTaskCancelsTheQuery() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let gate = harness.blockIO()
        let cache = harness.cache
        let task = Task { await cache.queryResult(forKey: key) }
        task.cancel()
        let result = await task.value
        gate.open()
        #expect(result.image == nil)
        #expect(result.cacheType == ImageCacheType.none)
    }
}
