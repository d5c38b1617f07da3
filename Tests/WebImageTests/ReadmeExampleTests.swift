import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The README's library quick start, run against the loopback origin so the README stays true.
@Suite("README example")
struct ReadmeExampleTests {
    /// Held as bytes, not `Data`: a `Data` kept in a global stores its buffer pointer with an enum
    /// tag in the top byte, which LeakSanitizer cannot follow (it reports the buffer at exit).
    static let jpeg = [UInt8](try! CodersManager.shared.encode(
        Image(bitmap: TestBitmaps.gradient(width: 800, height: 600)), as: .jpeg,
        options: EncodeOptions(compressionQuality: 0.8)))

    @Test func managerAsyncAndCompletionForms() async throws {
        try await withManager { h in
            h.origin.setRoute("/a.jpg", .data(Self.jpeg, contentType: "image/jpeg"))
            let manager = h.manager
            let url = h.origin.url("/a.jpg")

            let result = try await manager.image(for: url,
                context: WebImageContext(thumbnailPixelSize: PixelSize(width: 256, height: 256)))
            #expect(result.image?.pixelSize == PixelSize(width: 256, height: 192))
            #expect(result.cacheType == .none)

            var context = WebImageContext()
            context.imageTransformer = RoundCornerTransformer(cornerRadius: 16)
            let recorder = ResultRecorder()
            manager.loadImage(with: url, options: [.refreshCached], context: context,
                              completed: recorder.completion)
            let rounded = try #require(await recorder.waitForFinals().first?.image)
            #expect(rounded.bitmap.pixel(x: 0, y: 0).a == 0)

            let operation = manager.loadImage(with: h.origin.url("/other.jpg"), completed: recorder.completion)
            operation.cancel()
            #expect(await recorder.waitForFinals(2).last?.error?.code == .cancelled)
        }
    }

    @Test func downloadCacheTransform() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/a.jpg", .data(Self.jpeg, contentType: "image/jpeg"))
            let url = origin.url("/a.jpg")
            let loaded = try await downloader.loadImage(url)
            #expect(loaded.image?.pixelSize == PixelSize(width: 800, height: 600))
            var config = ImageCacheConfig()
            config.maxMemoryCost = 64 << 20
            config.maxDiskSize = 200 << 20
            config.maxDiskAge = 3 * 24 * 3600
            let cache = ImageCache(namespace: "avatars", directory: directory, config: config)
            #expect(cache.memoryCache.costLimit == 64 << 20)
            #expect(cache.config.disk.maxDiskSize == 200 << 20 && cache.config.disk.maxDiskAge == 3 * 24 * 3600)
            try await cache.storeImage(loaded.image, data: loaded.data, forKey: url.absoluteString)
            let hit = await cache.queryImage(forKey: url.absoluteString)
            #expect(hit.cacheType == .memory)
            let cached = try #require(hit.image)
            let rounded = try #require(RoundCornerTransformer(cornerRadius: 16).transformedImage(cached, forKey: "a"))
            #expect(rounded.bitmap.pixel(x: 0, y: 0).a == 0)
            #expect(rounded.format == .jpeg)
        }
    }

    /// The manager, prefetcher and ImageTarget part of the quick start.
    @Test func managerPrefetchAndBinding() async throws {
        try await withManager { h in
            for name in ["a", "b", "c"] { h.origin.setRoute("/\(name).jpg", .data(ManagerFixtures.jpeg(40, 30))) }
            let url = h.origin.url("/a.jpg")
            let urls = [h.origin.url("/b.jpg"), h.origin.url("/c.jpg")]

            let manager = h.manager
            let loaded = try await manager.image(for: url)
            #expect(loaded.image?.pixelSize == PixelSize(width: 40, height: 30) && loaded.cacheType == .none)

            let counts = await ImagePrefetcher(manager: manager).prefetch(urls)
            #expect(counts.finished == 2 && counts.skipped == 0)

            let cell = ReadmeThumbnail()
            cell.setImage(with: url, placeholder: nil, manager: manager)
            #expect(cell.shown?.pixelSize == PixelSize(width: 40, height: 30))   // a memory hit: set at once
        }
    }
}

/// The README's `Thumbnail`.
final class ReadmeThumbnail: ImageTarget {
    let imageLoadState = ImageTargetLoadState()
    private let image = Mutex<Image?>(nil)
    var shown: Image? { image.withLock { $0 } }
    func setImage(_ image: Image?, cacheType: ImageCacheType) { self.image.withLock { $0 = image } }
}
