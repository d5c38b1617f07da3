import Dispatch
import Foundation
import Synchronization
import Testing
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

/// Decodes like ``TestImageCoder`` but each full decode waits until the test opens it: to hold a
/// download in its decoding phase.
final class HeldTestCoder: ImageCoding {
    private let inner = TestImageCoder()
    private let semaphore = DispatchSemaphore(value: 0)
    private let started = TestGate()

    /// Lets one waiting decode (or the next one) go on.
    func open() { semaphore.signal() }

    func waitUntilDecoding(sourceLocation: SourceLocation = #_sourceLocation) async {
        await started.wait("a decode to start", sourceLocation: sourceLocation)
    }

    var decodeCount: Int { inner.decodeCount }

    func canDecode(_ data: Data) -> Bool { inner.canDecode(data) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        started.open()
        semaphore.wait()
        semaphore.signal()  // once opened, it stays open for every later decode
        return try inner.decode(data, options: options)
    }

    func canEncode(to format: ImageFormat) -> Bool { false }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        throw WebImageError(.encodingFailed, "HeldTestCoder does not encode.")
    }
}

extension WebImageContext {
    /// A context decoding with `coder`.
    static func testing(_ coder: any ImageCoding, thumbnail: PixelSize? = nil) -> WebImageContext {
        WebImageContext(imageCoder: coder, thumbnailPixelSize: thumbnail)
    }
}

extension ImageDownloader {
    /// The final result of loading `url` through `coder`, with no options.
    func finalResult(for url: URL, coder: TestImageCoder) async -> ImageLoadResult? {
        let recorder = LoadRecorder()
        requestImage(with: url, options: [], context: .testing(coder), progress: nil, completion: recorder.completion)
        return await recorder.waitForFinal()
    }
}

/// Collects what a loader's callbacks report, for assertions, and lets the test await them.
final class LoadRecorder: Sendable {
    private struct Log {
        var results: [ImageLoadResult] = []
        var progress: [(Int64, Int64)] = []
    }

    private let log = Watched(Log())

    var progressHandler: ImageLoadProgress {
        { [self] received, expected, _ in log.update { $0.progress.append((received, expected)) } }
    }

    var completion: ImageLoadCompletion {
        { [self] result in log.update { $0.results.append(result) } }
    }

    var results: [ImageLoadResult] { log.value.results }
    var finals: [ImageLoadResult] { results.filter(\.isFinished) }
    var partials: [ImageLoadResult] { results.filter { !$0.isFinished } }
    var progress: [(Int64, Int64)] { log.value.progress }

    /// Waits until `count` final results have arrived; returns the first.
    @discardableResult
    func waitForFinal(count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> ImageLoadResult? {
        await log.wait("\(count) final result(s)", sourceLocation: sourceLocation) {
            $0.results.count(where: \.isFinished) >= count
        }
        return finals.first
    }

    /// Waits until `count` partial results have arrived.
    @discardableResult
    func waitForPartials(_ count: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("\(count) partial result(s)", sourceLocation: sourceLocation) {
            $0.results.count { !$0.isFinished } >= count
        }
    }

    /// Waits until a progress call has reported at least `bytes` received.
    @discardableResult
    func waitForProgress(_ bytes: Int64, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await log.wait("progress to reach \(bytes) bytes", sourceLocation: sourceLocation) {
            $0.progress.contains { $0.0 >= bytes }
        }
    }
}

/// Waits until every recorder has its final result.
func waitForFinals(_ recorders: [LoadRecorder], sourceLocation: SourceLocation = #_sourceLocation) async {
    for recorder in recorders { await recorder.waitForFinal(sourceLocation: sourceLocation) }
}

/// Runs `body` with a downloader made from `config` and always shuts it down afterwards.
///
/// A config that keeps the library's default timeout gets ``TestTimeout/download`` instead: a
/// test that holds a body at the origin while it waits for other events must not have its
/// download time out because the machine is busy. Tests of timeouts set their own.
func withDownloader<T>(_ config: DownloaderConfig = .default,
                       _ body: (ImageDownloader) async throws -> T) async throws -> T {
    var config = config
    if config.downloadTimeout == DownloaderConfig().downloadTimeout {
        config.downloadTimeout = TestTimeout.download
    }
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
