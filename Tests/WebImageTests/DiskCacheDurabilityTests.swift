import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// `DiskCacheDurability.durable`: entries end with a length-and-CRC trailer, and a read that finds
/// one cut short or changed treats it as a miss and deletes it.
@Suite("DiskCache durable entries")
struct DiskCacheDurabilityTests {
    static let key = "https://example.com/result.png"

    @Test func roundTripKeepsTheBytesAndAddsTheTrailerOnDisk() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.durability = .durable }
        let bytes = diskCacheBytes(5000)
        try cache.setData(bytes, forKey: Self.key)
        #expect(cache.data(forKey: Self.key) == bytes)
        let file = try #require(FileManager.default.contents(atPath: cache.cachePath(forKey: Self.key)))
        #expect(file.count == bytes.count + DiskCacheTrailer.size)
        #expect(file.prefix(bytes.count) == bytes)
        #expect(cache.totalSize == file.count && cache.totalCount == 1)
        // A second cache on the directory (a restart) reads the same entry.
        let restarted = sandbox.cache { $0.durability = .durable }
        #expect(restarted.data(forKey: Self.key) == bytes)
        #expect(restarted.totalSize == file.count)
    }

    @Test func emptyDataRoundTrips() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.durability = .durable }
        try cache.setData(Data(), forKey: Self.key)
        #expect(cache.data(forKey: Self.key) == Data())
    }

    /// Every way a power loss can cut a file short: no bytes at all, part of the payload, the
    /// whole payload without its trailer, part of the trailer.
    @Test(arguments: [0, 1, 2500, 5000, 5000 + 7, 5000 + DiskCacheTrailer.size - 1])
    func truncatedFileIsAMissAndIsRemoved(keptBytes: Int) throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.durability = .durable }
        try cache.setData(diskCacheBytes(5000), forKey: Self.key)
        let path = cache.cachePath(forKey: Self.key)
        #expect(truncate(path, off_t(keptBytes)) == 0)

        #expect(cache.data(forKey: Self.key) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(cache.totalCount == 0 && cache.totalSize == 0)
    }

    @Test(arguments: [0, 4999, 5000, 5000 + 8, 5000 + DiskCacheTrailer.size - 1])
    func flippedByteIsAMissAndIsRemoved(offset: Int) throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.durability = .durable }
        try cache.setData(diskCacheBytes(5000), forKey: Self.key)
        let path = cache.cachePath(forKey: Self.key)
        var file = try #require(FileManager.default.contents(atPath: path))
        file[offset] ^= 0x01
        try file.write(to: URL(fileURLWithPath: path))

        #expect(cache.data(forKey: Self.key) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// Entries an atomic-mode cache (or an older version) wrote have no trailer: misses, removed.
    @Test func entryWithoutTrailerIsAMiss() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        try sandbox.cache().setData(diskCacheBytes(300), forKey: Self.key)
        let cache = sandbox.cache { $0.durability = .durable }
        #expect(cache.data(forKey: Self.key) == nil)
        #expect(!FileManager.default.fileExists(atPath: cache.cachePath(forKey: Self.key)))
        // Stored again, it reads back.
        try cache.setData(diskCacheBytes(300), forKey: Self.key)
        #expect(cache.data(forKey: Self.key) == diskCacheBytes(300))
    }

    /// The atomic default keeps files as the plain stored bytes, trailer-free.
    @Test func atomicModeStoresThePlainBytes() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        #expect(cache.config.durability == .atomic)
        try cache.setData(diskCacheBytes(300), forKey: Self.key)
        #expect(FileManager.default.contents(atPath: cache.cachePath(forKey: Self.key)) == diskCacheBytes(300))
    }

    @Test func trailerRejectsWhatDoesNotMatch() {
        let payload = diskCacheBytes(100)
        let file = payload + DiskCacheTrailer.make(for: payload)
        #expect(DiskCacheTrailer.payload(of: file) == payload)
        #expect(DiskCacheTrailer.payload(of: file.dropLast()) == nil)
        #expect(DiskCacheTrailer.payload(of: Data(file.dropFirst())) == nil)
        #expect(DiskCacheTrailer.payload(of: Data(count: DiskCacheTrailer.size)) == nil)
        #expect(DiskCacheTrailer.payload(of: Data()) == nil)
        // zlib's CRC-32 of "123456789" is the standard check value.
        #expect(DiskCacheTrailer.checksum(Data("123456789".utf8)) == 0xCBF4_3926)
    }
}
