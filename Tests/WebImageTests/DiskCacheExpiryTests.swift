import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("DiskCache expiry and trimming")
struct DiskCacheExpiryTests {
    /// test45: 20 bytes over a 10-byte limit go at the next check; so does anything past the age.
    @Test func sizeAndAgeRules() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.maxDiskAge = 1; $0.maxDiskSize = 10 }
        try cache.setData(diskCacheBytes(20), forKey: "big")
        #expect(cache.totalSize == 20 && cache.totalCount == 1)
        cache.removeExpiredData()
        #expect(cache.totalSize == 0 && cache.totalCount == 0)

        try cache.setData(diskCacheBytes(1), forKey: "small")
        cache.removeExpiredData()
        #expect(cache.totalCount == 1)  // young and under the limit
        let past = Date().timeIntervalSince1970 - 5
        DiskCacheFileSystem.setDates(access: past, modification: past, atPath: cache.cachePath(forKey: "small"))
        cache.removeExpiredData()
        #expect(cache.totalSize == 0 && cache.totalCount == 0)
    }

    @Test func zeroAgeExpiresEverythingAndNegativeNever() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let zero = sandbox.cache { $0.maxDiskAge = 0; $0.namespace = "zero" }
        try zero.setData(diskCacheBytes(5), forKey: "a")
        zero.removeExpiredData()
        #expect(zero.totalCount == 0)

        let never = sandbox.cache { $0.maxDiskAge = -1; $0.namespace = "never" }
        try never.setData(diskCacheBytes(5), forKey: "a")
        DiskCacheFileSystem.setDates(access: 1000, modification: 1000, atPath: never.cachePath(forKey: "a"))
        never.removeExpiredData()
        #expect(never.data(forKey: "a") == diskCacheBytes(5))
    }

    @Test func sizeTrimDeletesOldestUntilStrictlyBelowRatio() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.maxDiskSize = 1000 }
        for i in 0..<10 { try cache.setData(diskCacheBytes(200), forKey: "k\(i)") }
        cache.removeExpiredData()
        // 2000 > 1000: delete oldest until < 500, leaving the two newest.
        #expect(cache.totalSize == 400)
        #expect(cache.containsData(forKey: "k8") && cache.containsData(forKey: "k9"))
        #expect(!cache.containsData(forKey: "k7"))
    }

    @Test func modificationDateIgnoresReads() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.maxDiskSize = 250; $0.expireType = .modificationDate }
        for i in 0..<3 { try cache.setData(diskCacheBytes(100), forKey: "k\(i)") }
        _ = cache.data(forKey: "k0")
        cache.removeExpiredData()  // 300 > 250: keep < 125, so only the newest write survives
        #expect(cache.entryFileNames == [DiskCacheFileName.name(forKey: "k2")])
    }

    /// Linux file times come from a coarse clock (a few ms per tick): pause so that steps that
    /// must differ in birth or change time land on different ticks. Not a timing assertion, and
    /// not a wait for an event: the clock tick is what the test needs.
    private func nextFileTimeTick() async throws { try await Task.sleep(for: .milliseconds(30)) }

    /// `creationDate` ranks by birth time where the file system records it (ext4, btrfs, …), and
    /// ignores later modification-date changes; where it does not, it falls back to the
    /// modification date. A fresh `DiskCache` on the directory rescans with the rule.
    @Test func creationDateRanksByBirthTimeElseModification() async throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let writer = sandbox.cache()
        for i in 0..<3 {
            try writer.setData(diskCacheBytes(100), forKey: "k\(i)")
            try await nextFileTimeTick()
        }
        // Modification dates run the other way: k0 the newest, k2 the oldest.
        let now = Date().timeIntervalSince1970
        for (i, age) in [10.0, 1000, 2000].enumerated() {
            DiskCacheFileSystem.setDates(access: now - age, modification: now - age,
                                         atPath: writer.cachePath(forKey: "k\(i)"))
        }
        let births = (0..<3).map { DiskCacheFileSystem.creationDate(atPath: writer.cachePath(forKey: "k\($0)")) }
        let hasBirthTime = births.allSatisfy { $0 != nil }
        if hasBirthTime {  // set by the writes, untouched by the date changes since
            #expect(births[0]! < births[1]! && births[1]! < births[2]! && births[2]! < now, "\(births)")
        }

        let ranked = sandbox.cache { $0.expireType = .creationDate; $0.maxDiskSize = 250 }
        ranked.removeExpiredData()  // 300 > 250: keep < 125, so one entry survives
        let survivor = hasBirthTime ? "k2" : "k0"
        #expect(ranked.entryFileNames == [DiskCacheFileName.name(forKey: survivor)], "birth time: \(hasBirthTime)")
    }

    /// `changeDate` (ctime) moves with a recorded access, so a read entry outlives newer writes,
    /// also for a fresh `DiskCache` that only sees the files.
    @Test func changeDateFollowsRecordedAccess() async throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let first = sandbox.cache { $0.expireType = .changeDate; $0.accessDateUpdateInterval = 0 }
        for i in 0..<3 { try first.setData(diskCacheBytes(100), forKey: "k\(i)") }
        try await nextFileTimeTick()
        #expect(first.data(forKey: "k0") != nil)  // records the access: k0's ctime is now the newest

        let rescanned = sandbox.cache { $0.expireType = .changeDate; $0.maxDiskSize = 250 }
        rescanned.removeExpiredData()  // 300 > 250: keep < 125
        #expect(rescanned.entryFileNames == [DiskCacheFileName.name(forKey: "k0")])

        // And by age: an entry whose ctime is recent is young, whatever its other dates say.
        let aged = sandbox.cache { $0.expireType = .changeDate; $0.maxDiskAge = 3600 }
        let longAgo = Date().timeIntervalSince1970 - 86_400
        DiskCacheFileSystem.setDates(access: longAgo, modification: longAgo, atPath: aged.cachePath(forKey: "k0"))
        aged.removeExpiredData()
        #expect(aged.containsData(forKey: "k0"))  // setting the dates was itself a change, just now
    }

    @Test func continuousTrimKeepsRecentlyUsed() async throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let limit = 10_000
        let cache = sandbox.cache { $0.maxDiskSize = limit; $0.automaticTrimDelay = 0.05 }
        let hot = ["hot-0.png", "hot-1.png"]
        for key in hot { try cache.setData(diskCacheBytes(1000), forKey: key) }
        for i in 0..<28 {  // 30 KB in all: three times the limit
            try cache.setData(diskCacheBytes(1000, seed: UInt8(i)), forKey: "cold-\(i).png")
            for key in hot { #expect(cache.data(forKey: key) != nil) }
        }
        // A trim may still be pending (it runs after `automaticTrimDelay`) or running: it takes its
        // entries out of the index first and deletes their files after, so it is over once none is
        // pending and the files left are the index's (each deletion wakes the wait to check).
        let deletions = try #require(DirectoryDeletions(path: cache.directoryPath))
        await deletions.wait("the pending trim to run") {
            !cache.state.withLock { $0.trimScheduled } && cache.entryBytesOnDisk == cache.totalSize
        }
        #expect(cache.entryBytesOnDisk <= limit && cache.totalSize <= limit)
        #expect(cache.totalSize == cache.entryBytesOnDisk)
        for key in hot { #expect(cache.containsData(forKey: key)) }
        #expect(!cache.containsData(forKey: "cold-0.png"))
        #expect(cache.containsData(forKey: "cold-27.png"))
    }

    @Test func lruOrderSurvivesRestart() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let first = sandbox.cache()
        for i in 0..<5 { try first.setData(diskCacheBytes(1000), forKey: "k\(i)") }
        #expect(first.data(forKey: "k0") != nil)  // k0 becomes the most recently used
        #expect(first.data(forKey: "k3") != nil)

        let second = sandbox.cache { $0.maxDiskSize = 3000 }  // 5000 > 3000: keep < 1500
        second.removeExpiredData()
        #expect(second.entryFileNames == [DiskCacheFileName.name(forKey: "k3")])
        #expect(second.totalCount == 1)
    }

    @Test func throttledAccessStillOrdersInMemory() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache { $0.maxDiskSize = 3000; $0.accessDateUpdateInterval = 3600 }
        for i in 0..<5 { try cache.setData(diskCacheBytes(1000), forKey: "k\(i)") }
        #expect(cache.data(forKey: "k1") != nil)
        let before = DiskCacheFileSystem.info(atPath: cache.cachePath(forKey: "k1"))?.accessDate
        cache.trimToSizeLimit()  // the background trim, run inline
        #expect(cache.entryFileNames == [DiskCacheFileName.name(forKey: "k1")])
        #expect(DiskCacheFileSystem.info(atPath: cache.cachePath(forKey: "k1"))?.accessDate == before)
    }

    @Test func staleTemporaryFilesAreCleanedAndNeverCounted() throws {
        let sandbox = DiskCacheSandbox(); defer { sandbox.remove() }
        let cache = sandbox.cache()
        let stale = cache.directoryPath + "/" + DiskCacheFileSystem.temporaryPrefix + "stale"
        let fresh = cache.directoryPath + "/" + DiskCacheFileSystem.temporaryPrefix + "fresh"
        #expect(FileManager.default.createFile(atPath: stale, contents: diskCacheBytes(50)))
        #expect(FileManager.default.createFile(atPath: fresh, contents: diskCacheBytes(50)))
        let dayAgo = Date().timeIntervalSince1970 - 86_400
        DiskCacheFileSystem.setDates(access: dayAgo, modification: dayAgo, atPath: stale)
        #expect(cache.totalCount == 0 && cache.totalSize == 0)
        cache.removeExpiredData()
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: fresh))  // maybe another writer's, in flight
    }
}
