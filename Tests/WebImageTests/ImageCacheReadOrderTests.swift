import Dispatch
import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// When a disk query may read at once and when it must wait its turn on the I/O queue: a query
/// sees every change asked for before it (store, removal, clear), yet never waits behind another
/// key's write.
@Suite("ImageCache read order")
struct ImageCacheReadOrderTests {
    let key = "http://example.com/photo.png"

    @Test func aKeyWithNothingQueuedIsReadWhileAnotherKeysWriteHoldsTheQueue() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let gate = harness.blockIO(changing: "http://example.com/other.png")
        let answered = DispatchSemaphore(value: 0)
        let result = CallRecorder<ImageCacheQueryResult>()
        harness.cache.queryImage(forKey: key, options: [], context: .none, cacheType: .disk) {
            result.record($0)
            answered.signal()
        }
        // The queue stays held until the answer is in; a query in line behind the hold never answers.
        let inTime = answered.wait(timeout: .now() + 60) == .success
        gate.open()
        harness.drain()
        #expect(inTime)
        #expect(result.count == 1)
        #expect(result.last?.image?.pixelSize == PixelSize(width: 64, height: 48))
    }

    @Test func aQueryWaitsForAQueuedWriteOfItsKey() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let data = try ImageCacheFixtures.pngData()
        let result = queryBehindHeldQueue(harness) {
            harness.cache.storeImage(nil, data: data, forKey: key, options: [], context: .none, cacheType: .disk,
                                     completion: nil)
        }
        #expect(result.count == 1)
        #expect(result.last?.image?.pixelSize == PixelSize(width: 64, height: 48))
        #expect(result.last?.data == data)
    }

    @Test func aQueryWaitsForAQueuedRemovalOfItsKey() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let result = queryBehindHeldQueue(harness) {
            harness.cache.removeImage(forKey: key, cacheType: .disk, completion: nil)
        }
        #expect(result.count == 1)
        #expect(result.last?.image == nil)
        #expect(result.last?.data == nil)
    }

    @Test func aQueryWaitsForAQueuedClear() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        let result = queryBehindHeldQueue(harness) { harness.cache.clearDisk() }
        #expect(result.count == 1)
        #expect(result.last?.image == nil)
    }

    @Test func aCustomDiskStoreIsOnlyReadOnTheIOQueue() async throws {
        let disk = FlakyDiskCache()
        let harness = ImageCacheHarness { config in config.diskCacheFactory = { _ in disk } }
        defer { harness.remove() }
        try harness.cache.storeImageDataToDisk(try ImageCacheFixtures.pngData(), forKey: key)
        #expect(!harness.cache.readsOffIOQueue)
        let result = queryBehindHeldQueue(harness)
        #expect(result.last?.image?.pixelSize == PixelSize(width: 64, height: 48))
    }

    @Test func changesAreSettledOnceTheirCompletionRuns() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try await harness.cache.storeImage(nil, data: try ImageCacheFixtures.pngData(), forKey: key)
        #expect(harness.cache.pendingDiskWork.isSettled(key))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            harness.cache.clearDisk { done.resume() }
        }
        #expect(harness.cache.pendingDiskWork.isSettled(key))
    }

    @Test func aQueryAskedAfterAChangeDoesNotShareAReadFromBeforeIt() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let old = try ImageCacheFixtures.pngData(width: 10, height: 10)
        let new = try ImageCacheFixtures.pngData(width: 20, height: 20)
        try harness.cache.storeImageDataToDisk(old, forKey: key)
        // Everything waits on the I/O queue, so the first query's read is queued before the store.
        let gate = harness.blockIO()
        let before = CallRecorder<ImageCacheQueryResult>()
        harness.cache.queryImage(forKey: key, options: [], context: .none, cacheType: .disk) { before.record($0) }
        harness.cache.storeImage(nil, data: new, forKey: key, options: [], context: .none, cacheType: .disk,
                                 completion: nil)
        let after = CallRecorder<ImageCacheQueryResult>()
        harness.cache.queryImage(forKey: key, options: [], context: .none, cacheType: .disk) { after.record($0) }
        #expect(harness.cache.inFlightQueries.count == 2)
        gate.open()
        harness.drain()
        #expect(before.last?.data == old)
        #expect(after.last?.data == new)
        #expect(after.last?.image?.pixelSize == PixelSize(width: 20, height: 20))
    }

    @Test func aSynchronousChangeIsPendingWhileItRuns() throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let cache = harness.cache
        let pendingInside = cache.onIOQueueSync(changing: key) { !cache.pendingDiskWork.isSettled(key) }
        #expect(pendingInside)
        #expect(cache.pendingDiskWork.isSettled(key))
    }

    @Test func eachKeySeesItsOwnChangesInOrderWhileOtherKeysChange() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let cache = harness.cache
        let versions = try (0..<3).map { try ImageCacheFixtures.pngData(width: 8 + $0, height: 8) }
        // Each task owns one key and checks every query against its own queued changes, while the
        // other tasks' stores and removals keep the I/O queue busy with other keys.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for owner in 0..<4 {
                group.addTask {
                    let key = "http://example.com/owner-\(owner).png"
                    for round in 0..<25 {
                        let data = versions[round % versions.count]
                        cache.storeImage(nil, data: data, forKey: key, options: [], context: .none,
                                         cacheType: .disk, completion: nil)
                        let stored = await cache.queryResult(forKey: key, cacheType: .disk)
                        #expect(stored.data == data, "owner \(owner) round \(round): the query ran before the store")
                        cache.removeImage(forKey: key, cacheType: .disk, completion: nil)
                        let removed = await cache.queryResult(forKey: key, cacheType: .disk)
                        #expect(removed.data == nil, "owner \(owner) round \(round): the query ran before the removal")
                    }
                }
            }
            try await group.waitForAll()
        }
        harness.drain()
        #expect(cache.inFlightQueries.count == 0)
    }

    /// Holds the I/O queue with a change to another key, runs `change`, then asks for a disk query
    /// of `key` and checks that it waits its turn: with everything already queued on the decode
    /// and callback queues run, it has not answered. Then lets the queue go and returns what the
    /// query delivered once everything has run.
    private func queryBehindHeldQueue(_ harness: ImageCacheHarness,
                                      after change: () -> Void = {}) -> CallRecorder<ImageCacheQueryResult> {
        let gate = harness.blockIO(changing: "http://example.com/other.png")
        change()
        let result = CallRecorder<ImageCacheQueryResult>()
        harness.cache.queryImage(forKey: key, options: [], context: .none, cacheType: .disk) { result.record($0) }
        #expect(!harness.cache.pendingDiskWork.isSettled(key) || !harness.cache.readsOffIOQueue)
        ImageCache.decodeQueue.sync(flags: .barrier) {}
        harness.callbacks.sync {}
        #expect(result.count == 0)
        gate.open()
        harness.drain()
        return result
    }
}
