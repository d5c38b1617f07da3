import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Encoded test pictures made by the library's own encoders (real PNG / JPEG / GIF bytes).
enum ManagerFixtures {
    static func png(_ width: Int, _ height: Int, alpha: Bool = false) -> [UInt8] {
        let image = Image(bitmap: TestBitmaps.gradient(width: width, height: height, alpha: alpha), format: .png)
        return Array(try! CodersManager.shared.encode(image, as: .png, options: EncodeOptions()))
    }

    static func jpeg(_ width: Int, _ height: Int) -> [UInt8] {
        let image = Image(bitmap: TestBitmaps.gradient(width: width, height: height), format: .jpeg)
        return Array(try! CodersManager.shared.encode(image, as: .jpeg, options: EncodeOptions()))
    }

    /// A 3-frame animated GIF.
    static func animatedGIF(_ width: Int, _ height: Int) -> [UInt8] {
        let frames = (0..<3).map { index in
            ImageFrame(bitmap: Bitmap(width: width, height: height,
                                      fill: RGBA(r: UInt8(60 * index), g: 100, b: 200)), duration: 0.1)
        }
        let image = Image(frames: frames, loopCount: 0, format: .gif)
        return Array(try! CodersManager.shared.encode(image, as: .gif, options: EncodeOptions()))
    }
}

/// A loopback origin, a downloader, a cache in a temp directory and a manager over them.
struct ManagerHarness: Sendable {
    let origin: TestOrigin
    let downloader: ImageDownloader
    let caches: ImageCacheHarness
    let manager: ImageManager

    var cache: ImageCache { caches.cache }

    /// A second manager over a new cache object on the same directory (a "new process").
    func freshManager() -> (ImageManager, ImageCache) {
        var config = ImageCacheConfig()
        config.disk.automaticTrimDelay = nil
        let cache = ImageCache(namespace: "test", directory: caches.sandbox.root, config: config)
        return (ImageManager(cache: cache, loader: downloader), cache)
    }

    /// Waits until no load is running and the cache's queues are idle.
    func settle() async {
        _ = await waitUntil { !manager.isRunning }
        caches.drain()
    }
}


/// Runs `body` with a fresh ``ManagerHarness``, tearing everything down afterwards.
func withManager<T>(_ config: DownloaderConfig = .default,
                    _ body: (ManagerHarness) async throws -> T) async throws -> T {
    try await withOriginAndDownloader(config) { origin, downloader in
        let caches = ImageCacheHarness()
        defer { caches.remove() }
        let manager = ImageManager(cache: caches.cache, loader: downloader)
        return try await body(ManagerHarness(origin: origin, downloader: downloader, caches: caches,
                                             manager: manager))
    }
}

/// Collects every result a completion-API load reports.
final class ResultRecorder: Sendable {
    private let state = Mutex<[ImageManagerResult]>([])

    var completion: @Sendable (ImageManagerResult) -> Void {
        { result in self.state.withLock { $0.append(result) } }
    }

    var results: [ImageManagerResult] { state.withLock { $0 } }
    var finals: [ImageManagerResult] { results.filter(\.isFinished) }

    /// Waits for `count` finished results, then a little longer to catch extra ones.
    func waitForFinals(_ count: Int = 1) async -> [ImageManagerResult] {
        _ = await waitUntil { finals.count >= count }
        try? await Task.sleep(for: .milliseconds(50))
        return finals
    }
}

/// The error an async load throws, or nil when it succeeds.
func loadError(_ manager: ImageManager, _ url: URL?, options: WebImageOptions = [],
               context: WebImageContext = .none) async -> WebImageError? {
    do {
        _ = try await manager.image(for: url, options: options, context: context)
        return nil
    } catch {
        return error
    }
}
