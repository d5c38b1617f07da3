import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageLoading

/// A store with validators writes them with the bytes: one record in the packed layout, where a
/// separate write would append the bytes a second time.
@Suite("Image cache: validators stored with the bytes")
struct CacheValidatorsWithBytesTests {
    /// A disk store that counts the calls the image cache makes.
    final class CountingDiskCache: DiskCaching, @unchecked Sendable {
        let inner: DiskCache
        let combined = Atomic<Int>(0)
        let separate = Atomic<Int>(0)
        init(_ inner: DiskCache) { self.inner = inner }
        func containsData(forKey key: String) -> Bool { inner.containsData(forKey: key) }
        func data(forKey key: String) -> Data? { inner.data(forKey: key) }
        func setData(_ data: Data, forKey key: String) throws { try inner.setData(data, forKey: key) }
        func setData(_ data: Data, extendedData: Data?, forKey key: String) throws {
            combined.add(1, ordering: .relaxed)
            try inner.setData(data, extendedData: extendedData, forKey: key)
        }
        func extendedData(forKey key: String) -> Data? { inner.extendedData(forKey: key) }
        func setExtendedData(_ data: Data?, forKey key: String) throws {
            separate.add(1, ordering: .relaxed)
            try inner.setExtendedData(data, forKey: key)
        }
        func removeData(forKey key: String) { inner.removeData(forKey: key) }
        func removeAll() { inner.removeAll() }
        func removeExpiredData() { inner.removeExpiredData() }
        var totalSize: Int { inner.totalSize }
        var totalCount: Int { inner.totalCount }
        func cachePath(forKey key: String) -> String { inner.cachePath(forKey: key) }
    }

    func store(_ cache: ImageCache, _ data: Data, validators: HTTPValidators?, key: String) async -> WebImageError? {
        await withCheckedContinuation { continuation in
            cache.storeImage(nil, data: data, validators: validators, forKey: key, options: [], context: .none,
                             cacheType: .disk) { continuation.resume(returning: $0) }
        }
    }

    @Test(arguments: [DiskCacheLayout.files, .packed])
    func validatorsAreWrittenWithTheBytesInOneCall(layout: DiskCacheLayout) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("validators-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let counter = Mutex<CountingDiskCache?>(nil)
        var config = ImageCacheConfig()
        config.disk.layout = layout
        config.diskCacheFactory = { diskConfig in
            let counting = CountingDiskCache(DiskCache(config: diskConfig))
            counter.withLock { $0 = counting }
            return counting
        }
        let cache = ImageCache(namespace: "v", directory: directory, config: config)
        let disk = try #require(counter.withLock { $0 })
        let bytes = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let validators = HTTPValidators(etag: "\"abc\"", lastModified: "Wed, 21 Oct 2026 07:28:00 GMT")
        #expect(await store(cache, bytes, validators: validators, key: "https://example.com/a.jpg") == nil)
        #expect(disk.combined.load(ordering: .relaxed) == 1)
        #expect(disk.separate.load(ordering: .relaxed) == 0)
        #expect(cache.validators(forKey: "https://example.com/a.jpg") == validators)
        #expect(cache.diskImageData(forKey: "https://example.com/a.jpg") == bytes)
        if layout == .packed {
            // One record: the bytes were appended once.
            #expect(cache.totalDiskSize < bytes.count + 1024)
        }
        // Without validators: a plain store, nothing extended.
        #expect(await store(cache, bytes, validators: nil, key: "https://example.com/b.jpg") == nil)
        #expect(disk.combined.load(ordering: .relaxed) == 1)
        #expect(cache.validators(forKey: "https://example.com/b.jpg") == nil)
    }
}
