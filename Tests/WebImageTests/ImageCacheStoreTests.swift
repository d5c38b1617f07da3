import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Storing without data (which format the cache encodes to), custom coders, custom disk stores
/// and failing writes.
@Suite("ImageCache store encoding")
struct ImageCacheStoreTests {
    let key = "http://example.com/stored"

    /// Stores `image` with no data and returns the bytes written to disk.
    func storedBytes(_ image: Image, context: WebImageContext = .none) async throws -> Data {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try await harness.cache.storeImage(image, data: nil, forKey: key, context: context, cacheType: .disk)
        return try #require(harness.cache.diskImageData(forKey: key))
    }

    @Test func stillWithAlphaAndNoFormatIsPNG() async throws {
        let data = try await storedBytes(ImageCacheFixtures.translucent())
        #expect(ImageFormat.detect(data) == .png)
    }

    @Test func opaqueStillWithNoFormatIsJPEG() async throws {
        let data = try await storedBytes(ImageCacheFixtures.opaque())
        #expect(ImageFormat.detect(data) == .jpeg)
    }

    @Test func animationWithNoFormatIsGIF() async throws {
        let data = try await storedBytes(ImageCacheFixtures.animated())
        #expect(ImageFormat.detect(data) == .gif)
        #expect(try CodersManager.shared.decode(data, options: .default).frames.count == 3)
    }

    @Test func sourceFormatIsKeptWhenEncodable() async throws {
        let gif = try await storedBytes(ImageCacheFixtures.animated(format: .gif))
        #expect(ImageFormat.detect(gif) == .gif)
        #expect(try CodersManager.shared.decode(gif, options: .default).isAnimated)
        let png = Image(bitmap: TestBitmaps.quadrants(), format: .png)
        #expect(ImageFormat.detect(try await storedBytes(png)) == .png)
        let webp = Image(bitmap: TestBitmaps.quadrants(), format: .webp)
        #expect(ImageFormat.detect(try await storedBytes(webp)) == .webp)
    }

    @Test func encodeOptionsComeFromTheContext() async throws {
        var context = WebImageContext()
        context.imageEncodeOptions = EncodeOptions(maxPixelSize: PixelSize(width: 16, height: 16))
        let data = try await storedBytes(ImageCacheFixtures.opaque(width: 64, height: 32), context: context)
        #expect(try CodersManager.shared.decode(data, options: .default).pixelSize == PixelSize(width: 16, height: 8))
    }

    @Test func givenDataIsStoredAsIs() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let data = try ImageCacheFixtures.pngData()
        try await harness.cache.storeImage(ImageCacheFixtures.opaque(), data: data, forKey: key)
        #expect(harness.cache.diskImageData(forKey: key) == data)
    }

    @Test func customCoderEncodesOnStoreAndDecodesOnQuery() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let coder = FixedImageCoder()
        let context = WebImageContext(imageCoder: coder)
        try await harness.cache.storeImage(ImageCacheFixtures.opaque(), data: nil, forKey: key,
                                           context: context, cacheType: .disk)
        let path = try #require(harness.cache.cachePath(forKey: key))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == FixedImageCoder.encoded)
        let result = await harness.cache.queryResult(forKey: key, context: context)
        #expect(result.image === coder.image)
        #expect(result.cacheType == .disk)
    }

    @Test func writeFailureIsACacheFailureAndNothingCrashes() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        // A regular file where the cache directory should be: every write fails, even as root.
        try FileManager.default.removeItem(atPath: harness.cache.diskCachePath)
        try Data("x".utf8).write(to: URL(fileURLWithPath: harness.cache.diskCachePath))
        let image = ImageCacheFixtures.opaque()
        do {
            try await harness.cache.storeImage(image, forKey: key)
            Issue.record("the store should have failed")
        } catch {
            #expect(error.code == .cacheFailure)
        }
        // Memory was still written, and reads simply miss on disk.
        #expect(harness.cache.imageFromMemoryCache(forKey: key) === image)
        #expect(harness.cache.imageFromDiskCache(forKey: key) == nil)
        #expect(throws: WebImageError.self) { try harness.cache.storeImageDataToDisk(Data([1, 2, 3]), forKey: key) }
    }

    @Test func failedWriteKeepsThePreviousEntry() async throws {
        let disk = FlakyDiskCache()
        let harness = ImageCacheHarness { config in config.diskCacheFactory = { _ in disk } }
        defer { harness.remove() }
        #expect(harness.cache.diskCache as? FlakyDiskCache === disk)
        let first = try ImageCacheFixtures.pngData()
        try await harness.cache.storeImage(nil, data: first, forKey: key)
        disk.failWrites.store(true, ordering: .relaxed)
        await #expect(throws: WebImageError.self) {
            try await harness.cache.storeImage(nil, data: Data([9, 9, 9]), forKey: key)
        }
        #expect(harness.cache.diskImageData(forKey: key) == first)
    }

    @Test func encodingFailureIsReported() async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        let context = WebImageContext(imageCoder: CodersManager(coders: []))
        await #expect(throws: WebImageError.self) {
            try await harness.cache.storeImage(ImageCacheFixtures.opaque(), data: nil, forKey: key,
                                               context: context, cacheType: .disk)
        }
        #expect(!harness.cache.diskImageDataExists(forKey: key))
    }
}

/// An in-memory disk store whose writes can be made to fail (SDWebImage's custom `diskCacheClass`).
final class FlakyDiskCache: DiskCaching {
    let failWrites = Atomic<Bool>(false)
    private let entries = Mutex<[String: Data]>([:])

    func containsData(forKey key: String) -> Bool { entries.withLock { $0[key] != nil } }
    func data(forKey key: String) -> Data? { entries.withLock { $0[key] } }
    func setData(_ data: Data, forKey key: String) throws {
        if failWrites.load(ordering: .relaxed) { throw WebImageError(.cacheFailure, "disk full (test)") }
        entries.withLock { $0[key] = data }
    }
    func extendedData(forKey key: String) -> Data? { nil }
    func setExtendedData(_ data: Data?, forKey key: String) throws {}
    func removeData(forKey key: String) { _ = entries.withLock { $0.removeValue(forKey: key) } }
    func removeAll() { entries.withLock { $0 = [:] } }
    func removeExpiredData() {}
    var totalSize: Int { entries.withLock { $0.values.reduce(0) { $0 + $1.count } } }
    var totalCount: Int { entries.withLock { $0.count } }
    func cachePath(forKey key: String) -> String { "/nonexistent/" + key }
}
