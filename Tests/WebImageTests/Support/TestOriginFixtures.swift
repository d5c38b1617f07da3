import Foundation
import Synchronization
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A tiny image format for downloader tests, so they do not depend on the real codecs:
/// `TESTIMG` + width (UInt16 BE) + height (UInt16 BE) + RGBA rows, top-down.
/// Decoding honours the thumbnail size and counts how many decodes ran.
final class TestImageCoder: ProgressiveImageCoding {
    static let magic = Array("TESTIMG".utf8)
    static let headerSize = magic.count + 4

    private let decodes = Atomic<Int>(0)
    /// Full decodes run so far (partial decodes not included).
    var decodeCount: Int { decodes.load(ordering: .relaxed) }

    /// A `width`×`height` picture filled with `color`, in the test format.
    static func encode(width: Int, height: Int, color: RGBA = RGBA(r: 200, g: 30, b: 90)) -> [UInt8] {
        var bytes = magic
        bytes += [UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF)]
        bytes.reserveCapacity(bytes.count + width * height * 4)
        for _ in 0..<(width * height) { bytes += [color.r, color.g, color.b, color.a] }
        return bytes
    }

    static func header(of data: Data) -> PixelSize? {
        guard data.count >= headerSize, Array(data.prefix(magic.count)) == magic else { return nil }
        let bytes = Array(data[data.startIndex + magic.count ..< data.startIndex + headerSize])
        return PixelSize(width: Int(bytes[0]) << 8 | Int(bytes[1]), height: Int(bytes[2]) << 8 | Int(bytes[3]))
    }

    func canDecode(_ data: Data) -> Bool { Self.header(of: data) != nil }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        decodes.add(1, ordering: .relaxed)
        return try Self.decode(data, options: options, allowPartial: false)
    }

    static func decode(_ data: Data, options: DecodeOptions, allowPartial: Bool) throws -> Image {
        guard let size = header(of: data), !size.isEmpty else {
            throw WebImageError(.badImageData, "Not a TESTIMG picture.")
        }
        try options.limits.check(size, format: .undefined)
        let pixels = Array(data.dropFirst(headerSize))
        let needed = size.area * 4
        guard pixels.count >= needed || allowPartial else {
            throw WebImageError(.badImageData, "The TESTIMG picture is truncated.")
        }
        let full = Bitmap(width: size.width, height: size.height) { out in
            for i in 0..<needed { out[i] = i < pixels.count ? pixels[i] : 0 }
        }
        let target = options.targetSize(for: size)
        let bitmap = target == size ? full : Resampler.resize(full, to: target)
        return Image(bitmap: bitmap, scale: options.scaleFactor, decodeOptions: options,
                     isPartial: pixels.count < needed)
    }

    func canEncode(to format: ImageFormat) -> Bool { false }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError(.encodingFailed, "TestImageCoder does not encode.")
    }

    func canDecodeIncrementally(_ data: Data) -> Bool { Self.header(of: data) != nil }

    func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoding {
        TestIncrementalDecoder(options: options)
    }
}

/// Shows the rows received so far (the rest transparent black).
final class TestIncrementalDecoder: IncrementalImageDecoding {
    private let options: DecodeOptions
    private var data = Data()
    private var finished = false

    init(options: DecodeOptions) { self.options = options }

    func update(_ data: Data, finished: Bool) {
        self.data = data
        self.finished = finished
    }

    func currentImage() throws -> Image? {
        guard TestImageCoder.header(of: data) != nil else { return nil }
        return try TestImageCoder.decode(data, options: options, allowPartial: !finished)
    }
}

extension WebImageContext {
    /// A context decoding with `coder`.
    static func testing(_ coder: TestImageCoder, thumbnail: PixelSize? = nil) -> WebImageContext {
        WebImageContext(imageCoder: coder, thumbnailPixelSize: thumbnail)
    }
}

/// Collects what a loader's callbacks report, for assertions.
final class LoadRecorder: Sendable {
    private let state = Mutex<(results: [ImageLoadResult], progress: [(Int64, Int64)])>(([], []))

    var progressHandler: ImageLoadProgress {
        { [self] received, expected, _ in state.withLock { $0.progress.append((received, expected)) } }
    }

    var completion: ImageLoadCompletion {
        { [self] result in state.withLock { $0.results.append(result) } }
    }

    var results: [ImageLoadResult] { state.withLock { $0.results } }
    var finals: [ImageLoadResult] { results.filter(\.isFinished) }
    var partials: [ImageLoadResult] { results.filter { !$0.isFinished } }
    var progress: [(Int64, Int64)] { state.withLock { $0.progress } }
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
@discardableResult
func waitUntil(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Runs `body` with a downloader made from `config` and always shuts it down afterwards.
func withDownloader<T>(_ config: DownloaderConfig = .default,
                       _ body: (ImageDownloader) async throws -> T) async throws -> T {
    let downloader = ImageDownloader(config: config)
    do {
        let result = try await body(downloader)
        try await downloader.shutdown()
        return result
    } catch {
        try? await downloader.shutdown()
        throw error
    }
}

/// An origin and a downloader for one test, both torn down afterwards.
func withOriginAndDownloader<T>(_ config: DownloaderConfig = .default,
                                _ body: (TestOrigin, ImageDownloader) async throws -> T) async throws -> T {
    try await withTestOrigin { origin in
        try await withDownloader(config) { downloader in try await body(origin, downloader) }
    }
}
