import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The network faults of the matrix as ``ImageManager`` meets them: each one's origin routes, the
/// error a caller must get, and whether SDWebImage's rule block-lists the URL (bad data only).
enum ManagerFault: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case stalledBody, hangUp, truncatedBody, longContentLength, shortContentLength, emptyBody, htmlAsJPEG
    case pngBomb, gifBomb, jpegBomb, declaredTooLarge, streamedTooLarge, serverError, redirectLoop
    case connectionRefused

    var testDescription: String { rawValue }

    var expected: WebImageError.Code {
        switch self {
        case .stalledBody: .timedOut
        case .hangUp, .truncatedBody, .longContentLength, .connectionRefused: .connectionFailed
        case .shortContentLength, .emptyBody, .htmlAsJPEG: .badImageData
        case .pngBomb, .gifBomb, .jpegBomb: .imageTooLarge
        case .declaredTooLarge, .streamedTooLarge: .responseTooLarge
        case .serverError: .invalidDownloadStatusCode
        case .redirectLoop: .tooManyRedirects
        }
    }

    /// The default block rule: only bad data (and invalid URLs) block; network, timeout, size
    /// and status failures may succeed later, so they do not.
    var blocksTheURL: Bool { ImageLoadBlockRule.blockingCodes.contains(expected) }

    /// The size limit of the suites (1 MiB, so the "too large" bodies stay small) and the timeout:
    /// 2 s where the fault is a stall, the library's 15 s otherwise.
    var config: DownloaderConfig {
        FaultMatrix.config(maximumResponseSize: 1024 * 1024, timeout: self == .stalledBody ? 2 : 15)
    }

    /// Sets up the fault on `origin` and returns the URL that meets it.
    func url(on origin: TestOrigin) async throws -> URL {
        let png = try FaultMatrix.noisePNG(width: 24, height: 24)
        let path = "/fault-\(rawValue)"
        switch self {
        case .connectionRefused:
            // A port that was just listening and is now closed.
            let closed = try await TestOrigin.start()
            let url = closed.url(path)
            await closed.stop()
            return url
        case .redirectLoop:
            origin.setRoute(path, .redirect(to: path + "-b"))
            origin.setRoute(path + "-b", .redirect(to: path))
        default:
            origin.setRoute(path, route(png: png))
        }
        return origin.url(path)
    }

    private func route(png: [UInt8]) -> TestOriginRoute {
        switch self {
        case .stalledBody: return .data(png, contentType: "image/png", mode: .stallAfter(png.count / 2))
        case .hangUp: return .hangUp
        case .truncatedBody: return .data(png, contentType: "image/png", mode: .closeAfter(png.count / 2))
        case .longContentLength:
            var route = TestOriginRoute.data(png, contentType: "image/png", mode: .closeAfter(png.count))
            route.contentLength = png.count + 1000
            return route
        case .shortContentLength:
            var route = TestOriginRoute.data(png, contentType: "image/png")
            route.contentLength = png.count / 2
            return route
        case .emptyBody: return .data([], contentType: "image/png")
        case .htmlAsJPEG:
            return .data(Array("<!DOCTYPE html><html><body>Sorry</body></html>".utf8), contentType: "image/jpeg")
        case .pngBomb, .gifBomb, .jpegBomb:
            let bomb = FaultMatrixSizeTests.bombs[self == .pngBomb ? 0 : self == .gifBomb ? 1 : 2]
            return .data(bomb.bytes, contentType: bomb.type)
        case .declaredTooLarge:
            return .data(png, contentType: "image/png", mode: .generated(bytes: 8_000_000, chunk: 64 * 1024))
        case .streamedTooLarge:
            return .data(png, contentType: "image/png", mode: .generatedChunked(bytes: 8_000_000, chunk: 64 * 1024))
        case .serverError: return TestOriginRoute(status: 503, contentType: "image/png", body: png)
        case .redirectLoop, .connectionRefused: return .status(404)
        }
    }
}

/// Steps the manager fault suites share: one load with every result it reported, the "nothing
/// stored" check and the "still healthy" check.
enum ManagerFaultChecks {
    /// Loads `url` with the completion API and returns its one final result, expecting exactly one
    /// and nothing after it (partial images may come before).
    static func load(_ manager: ImageManager, _ url: URL, options: WebImageOptions = [],
                     sourceLocation: SourceLocation = #_sourceLocation) async throws -> ImageManagerResult {
        let recorder = ResultRecorder()
        manager.loadImage(with: url, options: options, completed: recorder.completion)
        #expect(await waitUntil(timeout: .seconds(60 * SanitizerRun.slowdown)) { !recorder.finals.isEmpty },
                "no final result for \(url)", sourceLocation: sourceLocation)
        try? await Task.sleep(for: .milliseconds(50))
        #expect(recorder.finals.count == 1, "one final result", sourceLocation: sourceLocation)
        #expect(recorder.results.last?.isFinished == true, "nothing after the final result",
                sourceLocation: sourceLocation)
        #expect(recorder.results.dropLast().allSatisfy { !$0.isFinished && $0.error == nil },
                sourceLocation: sourceLocation)
        return try #require(recorder.finals.first, sourceLocation: sourceLocation)
    }

    /// Expects a failed final result with `code` for `url`, carrying no image and no bytes.
    static func expectFailure(_ result: ImageManagerResult, _ code: WebImageError.Code, url: URL,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.error?.code == code, "\(String(describing: result.error))", sourceLocation: sourceLocation)
        // A redirect loop's error names the hop where the loop was found, on the same path stem.
        #expect(result.error?.url == url || (code == .tooManyRedirects && result.error?.url?.path.hasPrefix(url.path) == true),
                "\(String(describing: result.error?.url))", sourceLocation: sourceLocation)
        #expect(result.url == url, sourceLocation: sourceLocation)
        #expect(result.image == nil && result.data == nil && result.isFinished, sourceLocation: sourceLocation)
    }

    /// Regular files anywhere under `path`, hidden ones (temporary writes) included.
    static func files(under path: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var files: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if enumerator?.fileAttributes?[.type] as? FileAttributeType == .typeRegular { files.append(name) }
        }
        return files
    }

    /// Waits for the manager and the cache's queues, then expects nothing under `url`'s key in
    /// memory or on disk, and no file at all (entry, temporary or partial) in the cache's root.
    static func expectNothingStored(_ h: ManagerHarness, _ url: URL,
                                    sourceLocation: SourceLocation = #_sourceLocation) async {
        await h.settle()
        let key = h.manager.cacheKey(for: url)
        #expect(h.cache.imageFromMemoryCache(forKey: key) == nil, sourceLocation: sourceLocation)
        #expect(h.cache.memoryCache.count == 0, sourceLocation: sourceLocation)
        #expect(!h.cache.diskImageDataExists(forKey: key), sourceLocation: sourceLocation)
        #expect(files(under: h.caches.sandbox.root.path).isEmpty, sourceLocation: sourceLocation)
    }

    /// Expects no load left running and a good image on a fresh path to load through the same
    /// manager (and be cached): the fault left the manager, downloader and origin usable.
    static func expectHealthy(_ h: ManagerHarness, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(await waitUntil { !h.manager.isRunning }, sourceLocation: sourceLocation)
        let path = "/healthy-\(UUID().uuidString).png"
        h.origin.setRoute(path, .data(ManagerFixtures.png(6, 5), contentType: "image/png"))
        let result = try await h.manager.image(for: h.origin.url(path))
        #expect(result.image?.pixelSize == PixelSize(width: 6, height: 5), sourceLocation: sourceLocation)
        #expect(result.cacheType == ImageCacheType.none, sourceLocation: sourceLocation)
        await h.settle()
        #expect(h.cache.diskImageDataExists(forKey: h.origin.url(path).absoluteString), sourceLocation: sourceLocation)
    }
}
