import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Fault matrix, downloader + cache: whatever fault a download meets, its results carry nothing
/// a cache could store, so storing them (as the manager does with a finished result) leaves the
/// cache directory empty: no entry, no temporary or partial file.
@Suite("Fault matrix: failed downloads leave nothing in the cache")
struct FaultMatrixCacheTests {
    /// One server-side fault and the error the caller must get.
    enum Fault: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case truncatedBody, shortContentLength, stalledBody, hangUp, emptyBody, htmlAsJPEG
        case serverError, pngBomb, declaredTooLarge, streamedTooLarge

        var testDescription: String { rawValue }

        var expected: WebImageError.Code {
            switch self {
            case .truncatedBody, .hangUp: .connectionFailed
            case .shortContentLength, .emptyBody, .htmlAsJPEG: .badImageData
            case .stalledBody: .timedOut
            case .serverError: .invalidDownloadStatusCode
            case .pngBomb: .imageTooLarge
            case .declaredTooLarge, .streamedTooLarge: .responseTooLarge
            }
        }

        func route(png: [UInt8]) -> TestOriginRoute {
            switch self {
            case .truncatedBody: return .data(png, contentType: "image/png", mode: .closeAfter(png.count / 2))
            case .shortContentLength:
                var route = TestOriginRoute.data(png, contentType: "image/png")
                route.contentLength = png.count / 2
                return route
            case .stalledBody: return .data(png, contentType: "image/png", mode: .stallAfter(png.count / 2))
            case .hangUp: return .hangUp
            case .emptyBody: return .data([], contentType: "image/png")
            case .htmlAsJPEG: return .data(Array("<html><body>Sorry</body></html>".utf8), contentType: "image/jpeg")
            case .serverError: return TestOriginRoute(status: 503, contentType: "image/png", body: png)
            case .pngBomb: return .data(FaultMatrixSizeTests.bombs[0].bytes, contentType: "image/png")
            // 8 MB against the suite's 1 MB limit: the 300 MB cases are FaultMatrixSizeTests'; a
            // smaller body keeps the kernel copies (and the shared event loops) light here.
            case .declaredTooLarge:
                return .data(png, contentType: "image/png", mode: .generated(bytes: 8_000_000, chunk: 64 * 1024))
            case .streamedTooLarge:
                return .data(png, contentType: "image/png", mode: .generatedChunked(bytes: 8_000_000, chunk: 64 * 1024))
            }
        }
    }

    /// A 1 MB limit; a short timeout only where the fault is a stall.
    private static func config(for fault: Fault? = nil) -> DownloaderConfig {
        FaultMatrix.config(maximumResponseSize: 1024 * 1024, timeout: fault == .stalledBody ? 2 : 15)
    }

    /// Every file under `path`, hidden ones (temporary writes) included.
    private static func allFiles(under path: String) -> [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String]) ?? []
    }

    /// Stores a finished result the way the manager does: image and data as delivered, to memory and disk.
    private static func storeLikeTheManager(_ result: ImageLoadResult, key: String, in harness: ImageCacheHarness) {
        harness.cache.storeImage(result.image, data: result.data, forKey: key, options: [], context: .none,
                                 cacheType: .all, completion: nil)
        harness.drain()
    }

    @Test(arguments: Fault.allCases)
    func aFailedDownloadStoresNothing(_ fault: Fault) async throws {
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try await withOriginAndDownloader(Self.config(for: fault)) { origin, downloader in
            let png = try FaultMatrix.noisePNG(width: 24, height: 24)
            origin.setRoute("/fault.png", fault.route(png: png))
            let url = origin.url("/fault.png")
            let outcome = try await FaultMatrix.load(downloader, url, options: [.progressiveLoad])
            FaultMatrix.expectFailure(outcome, fault.expected)
            Self.storeLikeTheManager(outcome.final, key: url.absoluteString, in: harness)
            #expect(Self.allFiles(under: harness.cache.diskCachePath).isEmpty)
            #expect(!harness.cache.diskImageDataExists(forKey: url.absoluteString))
            #expect(!harness.cache.memoryCache.contains(forKey: url.absoluteString))
            try await FaultMatrix.expectHealthy(downloader, origin)
        }
    }

    @Test func theSameStepStoresASuccessfulDownload() async throws {
        // The control: the check above would see a stored entry.
        let harness = ImageCacheHarness()
        defer { harness.remove() }
        try await withOriginAndDownloader(Self.config()) { origin, downloader in
            let png = try FaultMatrix.noisePNG(width: 24, height: 24)
            origin.setRoute("/good.png", .data(png, contentType: "image/png", mode: .chunked(500)))
            let url = origin.url("/good.png")
            let outcome = try await FaultMatrix.load(downloader, url, options: [.progressiveLoad])
            #expect(outcome.error == nil)
            Self.storeLikeTheManager(outcome.final, key: url.absoluteString, in: harness)
            #expect(Self.allFiles(under: harness.cache.diskCachePath).count == 1)
            #expect(harness.cache.diskImageData(forKey: url.absoluteString) == Data(png))
        }
    }
}
