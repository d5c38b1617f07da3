import DiskCacheWorkerProtocol
import Foundation
import Glibc
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Other processes on the same directory: one killed mid-write, two writing at once.
/// They run the `DiskCacheWorker` test helper, built next to the test bundle.
@Suite("DiskCache across processes", .serialized)
struct DiskCacheProcessTests {
    static let keys = (0..<4).map(DiskCacheWorkerProtocol.key)

    func sharedCache(_ root: URL) -> DiskCache {
        var config = DiskCacheConfig(directory: root, namespace: DiskCacheWorkerProtocol.namespace)
        config.automaticTrimDelay = nil
        config.maxDiskSize = 0
        return DiskCache(config: config)
    }

    /// Every entry file and every key's data must be a complete, valid value.
    func expectOnlyCompleteEntries(_ cache: DiskCache) {
        for name in cache.entryFileNames {
            let data = FileManager.default.contents(atPath: cache.directoryPath + "/" + name) ?? Data()
            #expect(WorkerValue.isValid(data), "entry \(name) holds \(data.count) invalid bytes")
        }
        for key in Self.keys {
            if let data = cache.data(forKey: key) { #expect(WorkerValue.isValid(data)) }
        }
    }

    @Test func killedWriterLeavesNoPartialEntry() async throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        for round in 0..<3 {
            let worker = try startWorker(root: sandbox.root, [
                "--writer", "\(round)", "--keys", "4", "--iterations", "0", "--value-size", "\(1_000_000 + round * 1000)",
            ])
            let ready = await offThePool { worker.readAvailableStdout() }  // "ready" (or exit)
            #expect(String(decoding: ready, as: UTF8.self).contains(DiskCacheWorkerProtocol.readyLine))
            // The behaviour under test: the writer is killed at an arbitrary moment of its writes.
            usleep(UInt32.random(in: 20_000...150_000))
            worker.send(SIGKILL)
            #expect(await offThePool { worker.wait() } == .signaled(SIGKILL))
            let cache = sharedCache(sandbox.root)
            expectOnlyCompleteEntries(cache)
            #expect(cache.totalCount == cache.entryFileNames.count)
        }
        // Leftover temporary files are hidden, ignored, and cleaned once stale.
        let cache = sharedCache(sandbox.root)
        let dayAgo = Date().timeIntervalSince1970 - 86_400
        let all = try FileManager.default.contentsOfDirectory(atPath: cache.directoryPath)
        for name in all where name.hasPrefix(DiskCacheFileSystem.temporaryPrefix) {
            DiskCacheFileSystem.setDates(access: dayAgo, modification: dayAgo, atPath: cache.directoryPath + "/" + name)
        }
        cache.removeExpiredData()
        let left = try FileManager.default.contentsOfDirectory(atPath: cache.directoryPath)
        #expect(!left.contains { $0.hasPrefix(DiskCacheFileSystem.temporaryPrefix) })
    }

    @Test func twoProcessesHammeringOneDirectory() async throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let workers = try (1...2).map { writer in
            try startWorker(root: sandbox.root, [
                "--writer", "\(writer)", "--keys", "4", "--iterations", "400", "--value-size", "\(20_000 + writer)",
                "--max-size", "50000",
            ])
        }
        var writersSeen = Set<Int>()
        for worker in workers {
            let text = String(decoding: await offThePool { worker.readStdout() }, as: UTF8.self)
            #expect(await offThePool { worker.wait() } == .exited(0), "worker said: \(text)")
            #expect(text.contains(DiskCacheWorkerProtocol.doneLine(iterations: 400)))
        }
        let cache = sharedCache(sandbox.root)
        expectOnlyCompleteEntries(cache)
        for key in Self.keys {
            if let data = cache.data(forKey: key), let writer = WorkerValue.writer(of: data) { writersSeen.insert(writer) }
        }
        #expect(writersSeen.isSubset(of: [1, 2]))
        cache.removeExpiredData()
        #expect(cache.totalSize == cache.entryBytesOnDisk)
    }
}
