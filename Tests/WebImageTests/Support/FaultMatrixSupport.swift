import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// Shared steps of the fault-matrix suites: one load with everything its callbacks reported, and
/// the "still healthy afterwards" check.
enum FaultMatrix {
    /// What one load reported: its single final result, the partial results and the progress calls.
    struct Outcome {
        let final: ImageLoadResult
        let partials: [ImageLoadResult]
        let progress: [(Int64, Int64)]

        /// The final error; nil when the load succeeded.
        var error: WebImageError? { final.error }
        /// The most bytes any progress call reported.
        var mostBytesReported: Int64 { progress.map(\.0).max() ?? 0 }
    }

    /// Loads `url` and waits for its final result; fails the test if none (or more than one) arrives.
    static func load(_ downloader: ImageDownloader, _ url: URL, options: WebImageOptions = [],
                     context: WebImageContext = .none) async throws -> Outcome {
        let recorder = LoadRecorder()
        downloader.requestImage(with: url, options: options, context: context,
                                progress: recorder.progressHandler, completion: recorder.completion)
        await recorder.waitForFinal()
        let final = try #require(recorder.finals.first)
        #expect(recorder.finals.count == 1)
        return Outcome(final: final, partials: recorder.partials, progress: recorder.progress)
    }

    /// Expects `outcome` to be a failure with `code` that carries nothing a cache could store.
    static func expectFailure(_ outcome: Outcome, _ code: WebImageError.Code,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.error?.code == code, "\(String(describing: outcome.error))", sourceLocation: sourceLocation)
        #expect(outcome.final.image == nil, sourceLocation: sourceLocation)
        #expect(outcome.final.data == nil, sourceLocation: sourceLocation)
        #expect(outcome.final.isFinished, sourceLocation: sourceLocation)
    }

    /// Serves a good PNG on a fresh path and expects `downloader` to load it: the fault left the
    /// downloader, its connection pool and the origin usable.
    static func expectHealthy(_ downloader: ImageDownloader, _ origin: TestOrigin,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let path = "/healthy-\(UUID().uuidString).png"
        origin.setRoute(path, .data([UInt8](try ImageCacheFixtures.pngData(width: 6, height: 5)),
                                    contentType: "image/png"))
        let result = try await downloader.loadImage(origin.url(path))
        #expect(result.image?.pixelSize == PixelSize(width: 6, height: 5), sourceLocation: sourceLocation)
    }

    /// A PNG of noise, so it barely compresses: `width`×`height`×4 bytes and a little more.
    static func noisePNG(width: Int = 32, height: Int = 32) throws -> [UInt8] {
        let pixels = [UInt8](TestBitmaps.noise(count: width * height * 4, seed: 7))
        let image = Image(bitmap: Bitmap(width: width, height: height, pixels: pixels))
        return [UInt8](try PNGCoder().encode(image, as: .png, options: .default))
    }

    /// A config with the library's 15 s timeout unless a stall test asks for less (all ten times
    /// longer under a sanitizer): a loaded 2-core machine can pause the process for seconds.
    static func config(maximumResponseSize: Int? = nil, timeout: TimeInterval = 15) -> DownloaderConfig {
        var config = DownloaderConfig()
        config.downloadTimeout = timeout * SanitizerRun.slowdown
        if let maximumResponseSize { config.maximumResponseSize = maximumResponseSize }
        return config
    }
}
