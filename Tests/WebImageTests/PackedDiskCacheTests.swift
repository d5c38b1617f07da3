import Foundation
import Testing
@testable import WebImage
@testable import WebImageLoading

/// The packed disk layout in one process: storing, reopening, torn and damaged files, large
/// entries, trimming, and two caches on one directory (which behave as two processes do).
@Suite("Packed disk layout")
struct PackedDiskCacheTests {
    func packed(_ sandbox: DiskCacheSandbox, _ adjust: (inout DiskCacheConfig) -> Void = { _ in }) -> DiskCache {
        sandbox.cache { config in
            config.layout = .packed
            adjust(&config)
        }
    }

    func value(_ seed: Int, size: Int = 3000) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7) })
    }

    func packedFiles(_ cache: DiskCache, suffix: String) -> [String] {
        let directory = cache.directoryPath + "/" + PackedStore.directoryName
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(suffix) }.sorted()
    }

    @Test func storesReadsReplacesAndRemoves() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = packed(sandbox)
        for i in 0..<50 { try cache.setData(value(i), forKey: "https://example.com/\(i).jpg") }
        #expect(cache.totalCount == 50)
        #expect(cache.data(forKey: "https://example.com/7.jpg") == value(7))
        #expect(cache.containsData(forKey: "https://example.com/49.jpg"))
        #expect(cache.data(forKey: "https://example.com/50.jpg") == nil)
        try cache.setData(value(1000, size: 10), forKey: "https://example.com/7.jpg")
        #expect(cache.data(forKey: "https://example.com/7.jpg") == value(1000, size: 10))
        cache.removeData(forKey: "https://example.com/8.jpg")
        #expect(cache.data(forKey: "https://example.com/8.jpg") == nil)
        #expect(!cache.containsData(forKey: "https://example.com/8.jpg"))
        #expect(cache.totalCount == 49)
        // No file per entry: one segment holds them all.
        #expect(packedFiles(cache, suffix: ".seg").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.directoryPath) == [PackedStore.directoryName])
    }

    @Test func extendedDataRidesWithTheEntry() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = packed(sandbox)
        #expect(throws: WebImageError.self) { try cache.setExtendedData(Data("x".utf8), forKey: "missing") }
        try cache.setData(value(1), forKey: "k")
        #expect(cache.extendedData(forKey: "k") == nil)
        try cache.setExtendedData(Data("etag".utf8), forKey: "k")
        #expect(cache.extendedData(forKey: "k") == Data("etag".utf8))
        #expect(cache.data(forKey: "k") == value(1))
        try cache.setExtendedData(Data(), forKey: "k")
        #expect(cache.extendedData(forKey: "k") == Data())
        try cache.setExtendedData(nil, forKey: "k")
        #expect(cache.extendedData(forKey: "k") == nil)
        // A new write drops the old extended data, as in the files layout.
        try cache.setExtendedData(Data("etag".utf8), forKey: "k")
        try cache.setData(value(2), forKey: "k")
        #expect(cache.extendedData(forKey: "k") == nil)
        #expect(cache.totalCount == 1)
    }

    @Test func reopensFromTheIndexFileAndWithoutIt() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        do {
            let cache = packed(sandbox)
            for i in 0..<200 { try cache.setData(value(i), forKey: "key-\(i)") }
            cache.removeData(forKey: "key-3")
            try cache.setExtendedData(Data("v".utf8), forKey: "key-4")
        }  // saves the index file as it goes
        let reopened = packed(sandbox)
        #expect(reopened.totalCount == 199)
        #expect(reopened.data(forKey: "key-150") == value(150))
        #expect(reopened.data(forKey: "key-3") == nil)
        #expect(reopened.extendedData(forKey: "key-4") == Data("v".utf8))
        // Writes after the index file was saved are read back from the segment's tail.
        try reopened.setData(value(999), forKey: "late")
        reopened.packed?.saveIndex()
        try reopened.setData(value(998), forKey: "later")
        let indexPath = reopened.directoryPath + "/" + PackedStore.directoryName + "/" + PackedStore.indexFileName
        let third = packed(sandbox)
        #expect(third.data(forKey: "later") == value(998))
        #expect(third.data(forKey: "late") == value(999))
        // No index file, or a damaged one: rebuilt from the segments.
        for damage in [{ try? FileManager.default.removeItem(atPath: indexPath) },
                       { _ = FileManager.default.createFile(atPath: indexPath, contents: Data(repeating: 0x41, count: 4096)) }] {
            damage()
            let rebuilt = packed(sandbox)
            #expect(rebuilt.totalCount == 201)
            #expect(rebuilt.data(forKey: "key-3") == nil)
            #expect(rebuilt.data(forKey: "key-199") == value(199))
            #expect(rebuilt.extendedData(forKey: "key-4") == Data("v".utf8))
        }
    }

    @Test func aTornAppendAndADamagedRecordAreMissesNotWrongBytes() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        var segmentPath = ""
        do {
            let cache = packed(sandbox)
            for i in 0..<10 { try cache.setData(value(i), forKey: "key-\(i)") }
            segmentPath = cache.directoryPath + "/" + PackedStore.directoryName + "/" + packedFiles(cache, suffix: ".seg")[0]
            cache.packed?.saveIndex()
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: segmentPath))
        // A torn append: the first half of a record, then nothing.
        let torn = PackedRecord.encode(key: Array("torn".utf8), extendedData: nil, data: value(77), stamp: 1)
        handle.seekToEndOfFile()
        handle.write(torn.prefix(torn.count / 2))
        // A bit flipped in the middle of key-5's bytes (records are 3,000-odd bytes, in order).
        let recordLength = PackedRecord.paddedLength(keyLength: 5, extendedLength: 0, dataLength: 3000)
        handle.seek(toFileOffset: UInt64(recordLength * 5 + 1000))
        let byte = handle.readData(ofLength: 1)
        handle.seek(toFileOffset: UInt64(recordLength * 5 + 1000))
        handle.write(Data([byte[0] ^ 0x10]))
        handle.closeFile()
        let indexPath = (segmentPath as NSString).deletingLastPathComponent + "/" + PackedStore.indexFileName
        for withIndex in [true, false] {
            if !withIndex { try FileManager.default.removeItem(atPath: indexPath) }
            let cache = packed(sandbox)
            #expect(cache.data(forKey: "key-5") == nil)
            #expect(cache.data(forKey: "torn") == nil)
            for i in [0, 4, 6, 9] { #expect(cache.data(forKey: "key-\(i)") == value(i), "key-\(i), index file \(withIndex)") }
            try cache.setData(value(50), forKey: "after")
            #expect(cache.data(forKey: "after") == value(50))
        }
    }

    @Test func largeEntriesGetAFileEachAndGoWithTheirKey() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = packed(sandbox) { $0.packedEntryLimit = 64 * 1024 }
        try cache.setData(value(1, size: 200_000), forKey: "big")
        try cache.setData(value(2), forKey: "small")
        #expect(packedFiles(cache, suffix: ".one").count == 1)
        #expect(cache.data(forKey: "big") == value(1, size: 200_000))
        try cache.setData(value(3, size: 150_000), forKey: "big")
        #expect(packedFiles(cache, suffix: ".one").count == 1)
        #expect(cache.data(forKey: "big") == value(3, size: 150_000))
        let other = packed(sandbox) { $0.packedEntryLimit = 64 * 1024 }
        #expect(other.data(forKey: "big") == value(3, size: 150_000))
        cache.removeData(forKey: "big")
        #expect(packedFiles(cache, suffix: ".one").isEmpty)
        #expect(other.data(forKey: "big") == nil)
        #expect(other.data(forKey: "small") == value(2))
    }

    @Test func trimKeepsTheRecentlyUsedAndDeletesWholeSegments() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let limit = 400_000
        let cache = packed(sandbox) { $0.maxDiskSize = limit }
        var written = 0
        while cache.totalSize <= limit {
            try cache.setData(value(written), forKey: "key-\(written)")
            written += 1
        }
        // Used again: survives the trim although written first.
        for i in 0..<5 { #expect(cache.data(forKey: "key-\(i)") == value(i)) }
        cache.removeExpiredData()
        #expect(cache.totalSize <= limit / 2)
        for i in 0..<5 { #expect(cache.data(forKey: "key-\(i)") == value(i)) }
        #expect(cache.data(forKey: "key-\(written - 1)") == value(written - 1))
        #expect(cache.data(forKey: "key-10") == nil)
        // What the index counts is what is on disk.
        let directory = cache.directoryPath + "/" + PackedStore.directoryName
        let onDisk = packedFiles(cache, suffix: ".seg").reduce(0) { $0 + (DiskCacheFileSystem.info(atPath: directory + "/" + $1)?.size ?? 0) }
        #expect(cache.totalSize == onDisk)
    }

    @Test func automaticTrimRunsInTheBackground() async throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let config = sandbox.config {
            $0.layout = .packed
            $0.maxDiskSize = 200_000
            $0.automaticTrimDelay = 0
        }
        let (trims, trimmed) = AsyncStream.makeStream(of: Void.self)
        let cache = DiskCache(config: config, scanObserver: nil, packedTrimObserver: { trimmed.yield() })
        var written = 0
        while cache.totalSize <= 200_000 {
            try cache.setData(value(written), forKey: "key-\(written)")
            written += 1
        }
        // The write that crossed the limit claimed a trim that starts after it; earlier trims may
        // have run meanwhile (and let the loop write on), so wait for the store to be under.
        var iterator = trims.makeAsyncIterator()
        while cache.totalSize > 100_000 { _ = await iterator.next() }
        #expect(cache.totalSize <= 100_000)
        #expect(cache.data(forKey: "key-\(written - 1)") == value(written - 1))
    }

    @Test func expiryByAgeDeletesOldEntries() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = packed(sandbox) { $0.maxDiskAge = 0 }
        for i in 0..<10 { try cache.setData(value(i), forKey: "key-\(i)") }
        cache.removeExpiredData()
        #expect(cache.totalCount == 0)
        #expect(cache.data(forKey: "key-1") == nil)
        #expect(cache.totalSize == 0)
    }

    @Test func twoCachesOnOneDirectorySeeEachOthersWritesAndDeletes() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let a = packed(sandbox), b = packed(sandbox)
        try a.setData(value(1), forKey: "shared")
        #expect(b.data(forKey: "shared") == value(1))  // found in a's segment on b's miss
        b.removeData(forKey: "shared")
        #expect(a.data(forKey: "shared") == nil)  // the record's deleted flag
        try a.setData(value(2), forKey: "shared")
        try b.setData(value(3), forKey: "shared")
        #expect(a.data(forKey: "shared") == value(3) || a.data(forKey: "shared") == value(2))
        try b.setData(value(4), forKey: "other")
        #expect(a.data(forKey: "other") == value(4))
        // b compacts everything (a's segment is a's own while a appends: left alone).
        for i in 0..<30 { try b.setData(value(100 + i), forKey: "b-\(i)") }
        b.packed?.compact(keepingAccessedSince: 0, until: nil) { _ in true }
        #expect(a.data(forKey: "b-7") == value(107))
        #expect(b.data(forKey: "b-7") == value(107))
        // a clears the directory: b sees nothing, then writes anew.
        a.removeAll()
        #expect(b.data(forKey: "b-7") == nil)
        #expect(b.totalCount == 0)
        try b.setData(value(5), forKey: "fresh")
        #expect(a.data(forKey: "fresh") == value(5))
    }

    @Test func deletesFollowAnEntryMovedByAnotherCachesCompaction() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let a = packed(sandbox), b = packed(sandbox)
        for i in 0..<20 { try a.setData(value(i), forKey: "key-\(i)") }
        #expect(b.data(forKey: "key-3") == value(3))
        // a seals its segment; b copies the entries forward into its own and deletes it.
        a.packed?.appender.withLock { a.packed?.seal(&$0) }
        b.packed?.compact(keepingAccessedSince: 0, until: nil) { _ in true }
        #expect(packedFiles(a, suffix: ".seg").count == 1)
        // a's index still points into the deleted segment: its delete must find the copy.
        a.removeData(forKey: "key-3")
        #expect(b.data(forKey: "key-3") == nil)
        #expect(a.data(forKey: "key-3") == nil)
        #expect(b.data(forKey: "key-4") == value(4))
        #expect(a.data(forKey: "key-4") == value(4))
    }

    @Test func durableModeRoundTrips() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = packed(sandbox) { $0.durability = .durable }
        try cache.setData(value(1), forKey: "k")
        cache.removeData(forKey: "gone")
        #expect(cache.data(forKey: "k") == value(1))
        #expect(packed(sandbox) { $0.durability = .durable }.data(forKey: "k") == value(1))
    }

    @Test func hostileBytesInTheDirectoryAreIgnored() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = packed(sandbox)
        try cache.setData(value(1), forKey: "k")
        let directory = cache.directoryPath + "/" + PackedStore.directoryName
        // A header that claims the largest lengths, and random bytes, in files of both kinds.
        var header = Data(PackedRecord.mark) + Data([0, 1, 0, 0]) + Data(repeating: 0xFF, count: 24)
        header += Data(repeating: 0, count: 64)
        _ = FileManager.default.createFile(atPath: directory + "/0000000000000001-1.seg", contents: header)
        _ = FileManager.default.createFile(atPath: directory + "/0000000000000002-2.one", contents: Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 131) }))
        _ = FileManager.default.createFile(atPath: directory + "/" + PackedStore.indexFileName, contents: header)
        let reopened = packed(sandbox)
        #expect(reopened.data(forKey: "k") == value(1))
        #expect(reopened.totalCount == 1)
        reopened.removeExpiredData()
        #expect(reopened.data(forKey: "k") == value(1))
    }
}
