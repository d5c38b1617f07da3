import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// The network faults of the matrix as ``ImageManager`` meets them: what the loader delivers for
/// each (FaultMatrixResponseTests and FaultMatrixSizeTests pin how the downloader turns the wire
/// into these results), the error a caller must get, and whether SDWebImage's rule block-lists
/// the URL (bad data only).
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

    /// The default block rule: failures that would repeat (bad data, a redirect loop) block;
    /// network, timeout, size and status failures may succeed later, so they do not.
    var blocksTheURL: Bool { ImageLoadBlockRule.blockingCodes.contains(expected) }

    /// Scripts the fault on `loader` at its own path and returns the URL that meets it. Faults
    /// of the body deliver their bytes (real decode errors come from the real codecs); faults of
    /// the connection fail with the downloader's error after whatever bytes it had delivered.
    func url(on loader: ScriptedLoader) throws -> URL {
        let url = ScriptedLoader.url("/fault-\(rawValue)")
        loader.setScript(try script(), for: url)
        return url
    }

    private func script() throws -> LoadScript {
        let png = try FaultMatrix.noisePNG(width: 24, height: 24)
        let half = png.count / 2
        switch self {
        case .stalledBody:
            return LoadScript.body(png, contentType: "image/png").inChunks(half)
                .failing(.timedOut, "No data for 2 s: the download timed out.")
        case .hangUp:
            return .failure(.connectionFailed, "The server closed the connection before the response was complete.")
        case .truncatedBody:
            return LoadScript.body(png, contentType: "image/png").inChunks(half)
                .failing(.connectionFailed, "The server closed the connection before the response was complete.")
        case .longContentLength:
            // Every byte of the picture arrived; the promised rest never did.
            return LoadScript.body(png + [UInt8](repeating: 0, count: 1000), contentType: "image/png")
                .inChunks(png.count)
                .failing(.connectionFailed, "The server closed the connection before the response was complete.")
        case .shortContentLength:
            return .body(Array(png.prefix(half)), contentType: "image/png")
        case .emptyBody:
            return .body([], contentType: "image/png")
        case .htmlAsJPEG:
            return .body(Array("<!DOCTYPE html><html><body>Sorry</body></html>".utf8), contentType: "image/jpeg")
        case .pngBomb, .gifBomb, .jpegBomb:
            let bomb = FaultMatrixSizeTests.bombs[self == .pngBomb ? 0 : self == .gifBomb ? 1 : 2]
            return .body(bomb.bytes, contentType: bomb.type)
        case .declaredTooLarge:
            return .failure(.responseTooLarge, "The response declares 8000000 bytes, over the limit.")
        case .streamedTooLarge:
            return LoadScript.body(png, contentType: "image/png").inChunks(half)
                .failing(.responseTooLarge, "The response passed the limit while streaming.")
        case .serverError:
            var script = LoadScript.status(503)
            script.body = png
            script.contentType = "image/png"
            return script
        case .redirectLoop:
            return .failure(.tooManyRedirects, "The redirects loop back.")
        case .connectionRefused:
            return .failure(.connectionFailed, "The connection failed: connection refused.")
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
        let operation = manager.loadImage(with: url, options: options, completed: recorder.completion)
        await recorder.waitForFinals(sourceLocation: sourceLocation)
        let results = await recorder.settled(operation, sourceLocation: sourceLocation)
        #expect(results.count(where: \.isFinished) == 1, "one final result", sourceLocation: sourceLocation)
        #expect(results.last?.isFinished == true, "nothing after the final result", sourceLocation: sourceLocation)
        #expect(results.dropLast().allSatisfy { !$0.isFinished && $0.error == nil }, sourceLocation: sourceLocation)
        return try #require(results.last, sourceLocation: sourceLocation)
    }

    /// Expects a failed final result with `code` for `url`, carrying no image and no bytes.
    static func expectFailure(_ result: ImageManagerResult, _ code: WebImageError.Code, url: URL,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.error?.code == code, "\(String(describing: result.error))", sourceLocation: sourceLocation)
        #expect(result.error?.url == url, "\(String(describing: result.error?.url))", sourceLocation: sourceLocation)
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

    /// Drains the cache's queues, then expects nothing under `url`'s key in memory or on disk, and
    /// no file at all (entry, temporary or partial) in the cache's root.
    static func expectNothingStored(_ h: ScriptedManagerHarness, _ url: URL,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        h.drain()
        let key = h.manager.cacheKey(for: url)
        #expect(h.cache.imageFromMemoryCache(forKey: key) == nil, sourceLocation: sourceLocation)
        #expect(h.cache.memoryCache.count == 0, sourceLocation: sourceLocation)
        #expect(!h.cache.diskImageDataExists(forKey: key), sourceLocation: sourceLocation)
        #expect(files(under: h.caches.sandbox.root.path).isEmpty, sourceLocation: sourceLocation)
    }

    /// Expects no load left running and a good image on a fresh path to load through the same
    /// manager (and be cached): the fault left the manager usable.
    static func expectHealthy(_ h: ScriptedManagerHarness, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(!h.manager.isRunning, sourceLocation: sourceLocation)
        let url = h.serve("/healthy-\(UUID().uuidString).png", .png(6, 5))
        let result = try await h.manager.image(for: url)
        #expect(result.image?.pixelSize == PixelSize(width: 6, height: 5), sourceLocation: sourceLocation)
        #expect(result.cacheType == ImageCacheType.none, sourceLocation: sourceLocation)
        h.drain()
        #expect(h.cache.diskImageDataExists(forKey: url.absoluteString), sourceLocation: sourceLocation)
    }
}
