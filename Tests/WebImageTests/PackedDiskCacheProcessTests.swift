import DiskCacheWorkerProtocol
import Foundation
import Glibc
import Testing
@testable import WebImage
@testable import WebImageLoading

/// The packed layout with other processes on the same directory: a writer killed mid-append, and
/// two writing, reading, deleting and compacting at once (the `DiskCacheWorker` test helper).
@Suite("Packed disk layout across processes", .serialized)
struct PackedDiskCacheProcessTests {
    static let keys = (0..<4).map(DiskCacheWorkerProtocol.key)

    func sharedCache(_ root: URL) -> DiskCache {
        var config = DiskCacheConfig(directory: root, namespace: DiskCacheWorkerProtocol.namespace)
        config.automaticTrimDelay = nil
        config.maxDiskSize = 0
        config.layout = .packed
        return DiskCache(config: config)
    }

    @Test func killedWriterLeavesOnlyWholeEntries() async throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        for round in 0..<3 {
            let worker = try startWorker(root: sandbox.root, [
                "--layout", "packed", "--writer", "\(round)", "--keys", "4", "--iterations", "0",
                "--value-size", "\(100_000 + round * 1000)",
            ])
            let ready = await offThePool { worker.readAvailableStdout() }
            #expect(String(decoding: ready, as: UTF8.self).contains(DiskCacheWorkerProtocol.readyLine))
            // The behaviour under test: the writer is killed at an arbitrary moment of its appends.
            usleep(UInt32.random(in: 20_000...150_000))
            worker.send(SIGKILL)
            #expect(await offThePool { worker.wait() } == .signaled(SIGKILL))
            let cache = sharedCache(sandbox.root)
            var found = 0
            for key in Self.keys {
                if let data = cache.data(forKey: key) {
                    #expect(WorkerValue.isValid(data), "\(key) holds \(data.count) invalid bytes")
                    found += 1
                }
            }
            #expect(found > 0)
            try cache.setData(WorkerValue.make(writer: 9, iteration: round, size: 100), forKey: "after-\(round)")
            #expect(cache.data(forKey: "after-\(round)").map(WorkerValue.isValid) == true)
        }
    }

    @Test func twoProcessesHammeringOneDirectory() async throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let workers = try (1...2).map { writer in
            try startWorker(root: sandbox.root, [
                "--layout", "packed", "--writer", "\(writer)", "--keys", "4", "--iterations", "400",
                "--value-size", "\(20_000 + writer)", "--max-size", "1000000",
            ])
        }
        for worker in workers {
            let text = String(decoding: await offThePool { worker.readStdout() }, as: UTF8.self)
            #expect(await offThePool { worker.wait() } == .exited(0), "worker said: \(text)")
            #expect(text.contains(DiskCacheWorkerProtocol.doneLine(iterations: 400)))
        }
        let cache = sharedCache(sandbox.root)
        var writersSeen = Set<Int>()
        for key in Self.keys {
            if let data = cache.data(forKey: key) {
                #expect(WorkerValue.isValid(data))
                if let writer = WorkerValue.writer(of: data) { writersSeen.insert(writer) }
            }
        }
        #expect(writersSeen.isSubset(of: [1, 2]))
        cache.removeExpiredData()
        let directory = cache.directoryPath + "/" + PackedStore.directoryName
        let onDisk = (try FileManager.default.contentsOfDirectory(atPath: directory))
            .filter { $0.hasSuffix(".seg") || $0.hasSuffix(".one") }
            .reduce(0) { $0 + (DiskCacheFileSystem.info(atPath: directory + "/" + $1)?.size ?? 0) }
        #expect(cache.totalSize == onDisk)
    }
}
