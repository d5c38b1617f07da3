import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A directory rescan lists and stats files without the cache's lock: reads, writes and removes go
/// on beside it, and the index it builds still has their changes.
@Suite("DiskCache: rescans beside reads and writes")
struct DiskCacheScanTests {
    /// A scan observer that pauses the first scan after ``arm()`` at its first file until ``open()``.
    final class ScanGate: Sendable {
        private let armed = Atomic<Bool>(false)
        private let reachedSignal = DispatchSemaphore(value: 0)
        private let openSignal = DispatchSemaphore(value: 0)

        func arm() { armed.store(true, ordering: .sequentiallyConsistent) }

        func observe(_ name: String) {
            guard armed.exchange(false, ordering: .sequentiallyConsistent) else { return }
            reachedSignal.signal()
            openSignal.wait()
        }

        /// Waits until the armed scan is paused.
        func waitUntilReached() { reachedSignal.wait() }

        func open() { openSignal.signal() }
    }

    @Test func readsWritesAndRemovesProceedWhileARescanIsPaused() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let gate = ScanGate()
        let cache = DiskCache(config: sandbox.config(), scanObserver: { gate.observe($0) })
        try cache.setData(diskCacheBytes(100), forKey: "kept")
        try cache.setData(diskCacheBytes(50), forKey: "removed")
        #expect(cache.totalCount == 2)

        gate.arm()
        let scanDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            cache.removeExpiredData()
            scanDone.signal()
        }
        gate.waitUntilReached()

        // The rescan is paused in the middle of its listing: everything else must still run.
        let seen = Mutex<(read: Data?, stored: Bool, count: Int)>((nil, false, 0))
        let othersDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let read = cache.data(forKey: "kept")
            let stored = (try? cache.setData(diskCacheBytes(200, seed: 2), forKey: "added")) != nil
            cache.removeData(forKey: "removed")
            let count = cache.totalCount
            seen.withLock { $0 = (read, stored, count) }
            othersDone.signal()
        }
        // A generous bound, only so that a regression fails instead of hanging the run.
        let finished = othersDone.wait(timeout: .now() + 60) == .success
        #expect(finished, "a read, write or remove waited for the paused rescan")
        gate.open()
        scanDone.wait()
        if !finished { othersDone.wait() }

        let result = seen.withLock { $0 }
        #expect(result.read == diskCacheBytes(100))
        #expect(result.stored)
        #expect(result.count == 2)
        // The rescan listed the directory before the write: its index has the write all the same.
        #expect(cache.totalCount == 2)
        #expect(cache.totalSize == 300)
        #expect(cache.data(forKey: "added") == diskCacheBytes(200, seed: 2))
        #expect(cache.data(forKey: "removed") == nil)
    }

    @Test func changesDuringAScanAreReplayedOntoItsResult() {
        var scans = DiskCacheScans()
        let entry = DiskCacheIndex.Entry(size: 10, date: 1, recordedAccessDate: 1)
        scans.note(.set("before", entry))  // no scan running: nothing to keep
        let ticket = scans.begin()
        scans.note(.set("new", entry))
        scans.note(.remove("gone"))
        var listed = DiskCacheIndex()
        listed.set(entry, for: "gone")
        listed.set(entry, for: "old")
        let index = scans.finish(ticket, scanned: listed)
        #expect(index?.entries.keys.sorted() == ["new", "old"])
        #expect(index?.totalSize == 20)
    }

    @Test func aClearDuringAScanEmptiesItsResult() {
        var scans = DiskCacheScans()
        let entry = DiskCacheIndex.Entry(size: 10, date: 1, recordedAccessDate: 1)
        let ticket = scans.begin()
        scans.note(.clear)
        scans.note(.set("after", entry))
        var listed = DiskCacheIndex()
        listed.set(entry, for: "listed")
        #expect(scans.finish(ticket, scanned: listed)?.entries.keys.sorted() == ["after"])
    }

    @Test func anOlderScanFinishingLastDoesNotCount() {
        var scans = DiskCacheScans()
        let older = scans.begin()
        let newer = scans.begin()
        #expect(scans.finish(newer, scanned: DiskCacheIndex()) != nil)
        #expect(scans.finish(older, scanned: DiskCacheIndex()) == nil)
    }

    @Test func scansOfARecreatedDirectoryDoNotCount() {
        var scans = DiskCacheScans()
        let running = scans.begin()
        scans.discardRunning()
        let next = scans.begin()
        #expect(scans.finish(running, scanned: DiskCacheIndex()) == nil)
        #expect(scans.finish(next, scanned: DiskCacheIndex()) != nil)
    }
}
