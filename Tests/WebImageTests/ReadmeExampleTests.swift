import Foundation
import Testing
@testable import WebImage

/// The README's library quick start, run against the loopback origin so the README stays true.
@Suite("README example")
struct ReadmeExampleTests {
    @Test func downloadCacheTransform() async throws {
        let jpeg = try CodersManager.shared.encode(Image(bitmap: TestBitmaps.gradient(width: 800, height: 600)),
                                                   as: .jpeg, options: EncodeOptions(compressionQuality: 0.8))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withOriginAndDownloader { origin, downloader in
            origin.setRoute("/a.jpg", .data([UInt8](jpeg), contentType: "image/jpeg"))
            let url = origin.url("/a.jpg")
            let result = try await downloader.loadImage(url,
                context: WebImageContext(thumbnailPixelSize: PixelSize(width: 256, height: 256)))
            #expect(result.image?.pixelSize == PixelSize(width: 256, height: 192))
            let cache = ImageCache(namespace: "avatars", directory: directory)
            try await cache.storeImage(result.image, data: result.data, forKey: url.absoluteString)
            let hit = await cache.queryImage(forKey: url.absoluteString)
            #expect(hit.cacheType == .memory)
            let round = RoundCornerTransformer(cornerRadius: 16)
            let cached = try #require(hit.image)
            let rounded = try #require(round.transformedImage(cached, forKey: "a"))
            #expect(rounded.bitmap.pixel(x: 0, y: 0).a == 0)
            #expect(rounded.format == .jpeg)
        }
    }
}
