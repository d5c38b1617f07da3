import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("DiskCache robustness")
struct DiskCacheRobustnessTests {
    @Test(arguments: [DiskCacheExtendedDataStorage.extendedAttributes, .sidecarFiles, .automatic])
    func extendedDataRoundTrips(storage: DiskCacheExtendedDataStorage) throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.extendedDataStorage = storage }
        let key = "https://example.com/a.png"
        #expect(throws: WebImageError.self) { try cache.setExtendedData(Data("x".utf8), forKey: key) }
        try cache.setData(diskCacheBytes(100), forKey: key)
        #expect(cache.extendedData(forKey: key) == nil)
        let validators = Data(#"{"etag":"\"abc\""}"#.utf8)
        try cache.setExtendedData(validators, forKey: key)
        #expect(cache.extendedData(forKey: key) == validators)
        #expect(cache.totalCount == 1 && cache.totalSize == 100)  // a sidecar is not an entry
        #expect(cache.entryFileNames == [DiskCacheFileName.name(forKey: key)])
        let sidecar = cache.sidecarPath(forName: DiskCacheFileName.name(forKey: key))
        #expect(FileManager.default.fileExists(atPath: sidecar) == (storage == .sidecarFiles))
        if storage != .sidecarFiles {
            let attribute = ExtendedAttributes.value(named: DiskCache.extendedAttributeName, atPath: cache.cachePath(forKey: key))
            #expect((try? attribute.get()) == validators)
        }
        #expect(sandbox.cache { $0.extendedDataStorage = storage }.extendedData(forKey: key) == validators)

        try cache.setExtendedData(nil, forKey: key)
        #expect(cache.extendedData(forKey: key) == nil)
        #expect(cache.data(forKey: key) == diskCacheBytes(100))

        try cache.setExtendedData(validators, forKey: key)
        try cache.setData(diskCacheBytes(5), forKey: key)  // new bytes, stale validators gone
        #expect(cache.extendedData(forKey: key) == nil)
        try cache.setExtendedData(validators, forKey: key)
        cache.removeData(forKey: key)
        #expect(cache.extendedData(forKey: key) == nil)
        #expect(!FileManager.default.fileExists(atPath: sidecar))
    }

    /// Values an xattr cannot hold (ext4 caps them near one block) go to a sidecar in automatic mode.
    @Test func largeExtendedDataFallsBackToSidecar() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        try cache.setData(diskCacheBytes(10), forKey: "k")
        let large = diskCacheBytes(200_000, seed: 3)
        try cache.setExtendedData(large, forKey: "k")
        #expect(cache.extendedData(forKey: "k") == large)
        let small = Data("small".utf8)
        try cache.setExtendedData(small, forKey: "k")  // back in the xattr; the sidecar goes
        #expect(cache.extendedData(forKey: "k") == small)
        #expect(!FileManager.default.fileExists(atPath: cache.sidecarPath(forName: DiskCacheFileName.name(forKey: "k"))))
        #expect(cache.totalCount == 1 && cache.totalSize == 10)
    }

    @Test func orphanedSidecarsAreCleaned() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.extendedDataStorage = .sidecarFiles }
        let orphan = cache.sidecarPath(forName: DiskCacheFileName.name(forKey: "gone"))
        #expect(FileManager.default.createFile(atPath: orphan, contents: Data("old".utf8)))
        cache.removeExpiredData()
        #expect(!FileManager.default.fileExists(atPath: orphan))
    }

    @Test func strangeFilesDoNotBreakTheCache() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.maxDiskSize = 100_000 }
        let dir = cache.directoryPath
        try FileManager.default.createDirectory(atPath: dir + "/subdir/deeper", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: "/etc/hostname")
        try FileManager.default.createSymbolicLink(atPath: dir + "/" + DiskCacheFileName.name(forKey: "linked"),
                                                   withDestinationPath: "/etc/hostname")
        #expect(FileManager.default.createFile(atPath: dir + "/README", contents: Data("not ours".utf8)))
        #expect(FileManager.default.createFile(atPath: dir + "/.hidden", contents: Data("x".utf8)))
        #expect(FileManager.default.createFile(atPath: dir + "/" + DiskCacheFileName.name(forKey: "empty"), contents: Data()))
        // A directory where an entry would be.
        try FileManager.default.createDirectory(atPath: cache.cachePath(forKey: "dir.png"), withIntermediateDirectories: true)

        #expect(cache.totalCount == 2 && cache.totalSize == 8)  // README and the empty file
        #expect(cache.data(forKey: "linked") == nil)  // symlinks are not followed
        #expect(cache.data(forKey: "dir.png") == nil)
        #expect(!cache.containsData(forKey: "dir.png"))
        #expect(cache.data(forKey: "empty") == Data())
        cache.removeExpiredData()
        try cache.setData(diskCacheBytes(10), forKey: "fine")
        #expect(cache.data(forKey: "fine") == diskCacheBytes(10))

        cache.removeAll()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(FileManager.default.fileExists(atPath: "/etc/hostname"))
        try cache.setData(diskCacheBytes(3), forKey: "again")
        #expect(cache.totalCount == 1)
    }

    @Test func vanishedDirectoryIsRecreatedOnWrite() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        try cache.setData(diskCacheBytes(10), forKey: "a")
        #expect(cache.totalCount == 1)
        try FileManager.default.removeItem(atPath: sandbox.root.path)
        #expect(cache.data(forKey: "a") == nil)
        #expect(!cache.containsData(forKey: "a"))
        #expect(cache.extendedData(forKey: "a") == nil)
        cache.removeData(forKey: "a")
        try cache.setData(diskCacheBytes(20), forKey: "b")
        #expect(cache.data(forKey: "b") == diskCacheBytes(20))
        #expect(cache.totalCount == 1 && cache.totalSize == 20)
    }

    /// Write failures throw `.cacheFailure` naming the path, and leave the old entry as it was.
    /// Tests run as root, so permission bits stop nothing: the directory is made immutable
    /// (`chattr +i`) where possible, else it is swapped for a regular file while writing.
    @Test func unwritableDirectoryFailsCleanly() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        let key = "https://example.com/kept.jpg"
        try cache.setData(diskCacheBytes(64), forKey: key)

        if runChattr("+i", cache.directoryPath) {
            defer { _ = runChattr("-i", cache.directoryPath) }
            let error = try #require(throws: WebImageError.self) { try cache.setData(diskCacheBytes(8), forKey: key) }
            #expect(error.code == .cacheFailure)
            #expect(error.message.contains(cache.directoryPath))
            #expect(cache.data(forKey: key) == diskCacheBytes(64))
        }

        let aside = sandbox.root.appendingPathComponent("aside").path
        try FileManager.default.moveItem(atPath: cache.directoryPath, toPath: aside)
        #expect(FileManager.default.createFile(atPath: cache.directoryPath, contents: Data("in the way".utf8)))
        let error = try #require(throws: WebImageError.self) { try cache.setData(diskCacheBytes(8), forKey: key) }
        #expect(error.code == .cacheFailure)
        #expect(error.message.contains(cache.directoryPath))
        #expect(cache.data(forKey: key) == nil)  // reads miss cleanly
        try FileManager.default.removeItem(atPath: cache.directoryPath)
        try FileManager.default.moveItem(atPath: aside, toPath: cache.directoryPath)
        #expect(cache.data(forKey: key) == diskCacheBytes(64))
        #expect(cache.entryFileNames == [DiskCacheFileName.name(forKey: key)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.directoryPath).count == 1)  // no temp left
    }

    @Test func concurrentWritersInOneProcess() async throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.maxDiskSize = 40_000; $0.automaticTrimDelay = 0 }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for i in 0..<200 {
                        let key = "k\(i % 10)"
                        try? cache.setData(diskCacheBytes(1000, seed: UInt8(worker)), forKey: key)
                        if let data = cache.data(forKey: key) {
                            #expect(data.count == 1000 && (0..<4).contains { data == diskCacheBytes(1000, seed: UInt8($0)) })
                        }
                        if i % 7 == 0 { cache.removeData(forKey: "k\((i + worker) % 10)") }
                    }
                }
            }
        }
        cache.removeExpiredData()
        #expect(cache.totalSize == cache.entryBytesOnDisk)
        #expect(cache.totalSize <= 40_000)
    }
}
