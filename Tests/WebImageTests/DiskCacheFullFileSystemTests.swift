import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A disk cache on a tiny tmpfs: writes that do not fit fail cleanly and lose nothing stored.
@Suite("DiskCache on a full file system", .serialized)
struct DiskCacheFullFileSystemTests {
    /// Mounts a `kilobytes` tmpfs at a new directory; nil where mounting is not permitted.
    static func mountTmpfs(kilobytes: Int) -> URL? {
        let mountPoint = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-tmpfs-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", mountPoint.path]) == 0 else {
            try? FileManager.default.removeItem(at: mountPoint)
            return nil
        }
        return mountPoint
    }

    static func unmount(_ mountPoint: URL) {
        _ = run("/bin/umount", [mountPoint.path])
        try? FileManager.default.removeItem(at: mountPoint)
    }

    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        guard let child = try? ChildProcess(tool, arguments) else { return -1 }
        return child.wait().status
    }

    @Test func writesThatDoNotFitFailAndKeepThePreviousEntries() throws {
        guard let root = Self.mountTmpfs(kilobytes: 256) else {
            try Test.cancel("mounting a tmpfs is not permitted here")
        }
        defer { Self.unmount(root) }
        var config = DiskCacheConfig(directory: root, namespace: "full")
        config.automaticTrimDelay = nil
        config.extendedDataStorage = .sidecarFiles
        let cache = DiskCache(config: config)
        let first = diskCacheBytes(100 * 1024, seed: 1)
        try cache.setData(first, forKey: "https://example.com/first.jpg")

        // 200 KB more cannot fit in what is left of 256 KB.
        #expect(throws: WebImageError.self) {
            try cache.setData(diskCacheBytes(200 * 1024, seed: 2), forKey: "https://example.com/second.jpg")
        }
        do {
            try cache.setData(diskCacheBytes(200 * 1024, seed: 3), forKey: "https://example.com/first.jpg")
            Issue.record("a 200 KB overwrite fitted into a 256 KB file system holding 100 KB")
        } catch let error as WebImageError {
            #expect(error.code == .cacheFailure)
        }
        // The entry stored before is intact, the failed key reads as a miss, nothing half-written is left.
        #expect(cache.data(forKey: "https://example.com/first.jpg") == first)
        #expect(cache.data(forKey: "https://example.com/second.jpg") == nil)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: cache.directoryPath)
            .filter { $0.hasPrefix(".webimage-tmp") }
        #expect(leftovers.isEmpty)
        #expect(cache.totalCount == 1)
        // After freeing space the cache works again.
        cache.removeData(forKey: "https://example.com/first.jpg")
        try cache.setData(diskCacheBytes(200 * 1024, seed: 4), forKey: "https://example.com/second.jpg")
        #expect(cache.data(forKey: "https://example.com/second.jpg")?.count == 200 * 1024)
    }
}
