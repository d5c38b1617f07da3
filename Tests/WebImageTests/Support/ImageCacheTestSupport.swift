import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// An image cache in a throw-away directory, with its own callback queue so tests can wait for
/// every completion to have run.
struct ImageCacheHarness {
    let sandbox = DiskCacheSandbox()
    let callbacks = DispatchQueue(label: "test.imagecache.callbacks")
    let cache: ImageCache

    init(namespace: String = "test", _ adjust: (inout ImageCacheConfig) -> Void = { _ in }) {
        var config = ImageCacheConfig()
        config.disk.automaticTrimDelay = nil
        config.disk.accessDateUpdateInterval = 0
        config.callbackQueue = CallbackQueue(callbacks)
        adjust(&config)
        cache = ImageCache(namespace: namespace, directory: sandbox.root, config: config)
    }

    /// Waits until the I/O queue, the decode queue and then the callback queue have run everything
    /// queued so far.
    func drain() {
        cache.ioQueue.sync {}
        ImageCache.decodeQueue.sync(flags: .barrier) {}
        callbacks.sync {}
    }

    /// Holds the I/O queue until the returned gate is opened, so asynchronous steps stay pending.
    /// The hold counts as a queued change to `key`'s entry (nil: to every entry, so every disk
    /// read waits its turn behind it, as behind a queued clear).
    func blockIO(changing key: String? = nil) -> IOGate {
        let gate = IOGate()
        cache.onIOQueueAsync(changing: key) { gate.semaphore.wait() }
        return gate
    }

    func remove() { sandbox.remove() }
}

/// Opens a blocked I/O queue.
final class IOGate: Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    func open() { semaphore.signal() }
}

/// A thread-safe call counter that also keeps the last value it was given.
final class CallRecorder<Value: Sendable>: Sendable {
    private let state = Mutex<(count: Int, last: Value?)>((0, nil))

    func record(_ value: Value) { state.withLock { $0 = ($0.count + 1, value) } }
    var count: Int { state.withLock { $0.count } }
    var last: Value? { state.withLock { $0.last } }
}

/// Wraps the shared coders and counts decodes.
final class CountingCoder: ImageCoding {
    private let decodes = Atomic<Int>(0)
    var decodeCount: Int { decodes.load(ordering: .relaxed) }

    func canDecode(_ data: Data) -> Bool { CodersManager.shared.canDecode(data) }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        decodes.add(1, ordering: .relaxed)
        return try CodersManager.shared.decode(data, options: options)
    }
    func canEncode(to format: ImageFormat) -> Bool { CodersManager.shared.canEncode(to: format) }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        try CodersManager.shared.encode(image, as: format, options: options)
    }
}

/// SDWebImage's test41 coder: accepts everything, encodes to the text "TestEncode" and decodes
/// anything to one fixed image.
final class FixedImageCoder: ImageCoding {
    static let encoded = Data("TestEncode".utf8)
    let image = Image(bitmap: Bitmap(width: 7, height: 5, fill: RGBA(r: 9, g: 8, b: 7)))

    func canDecode(_ data: Data) -> Bool { true }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image { image }
    func canEncode(to format: ImageFormat) -> Bool { true }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data { Self.encoded }
}

/// Images and encoded bytes for the cache suites, made by our own encoders.
enum ImageCacheFixtures {
    /// An opaque still picture (no alpha, format undefined).
    static func opaque(width: Int = 64, height: Int = 48) -> Image {
        Image(bitmap: TestBitmaps.quadrants(width: width, height: height))
    }

    /// A still picture with transparency (format undefined).
    static func translucent() -> Image {
        Image(bitmap: TestBitmaps.gradient(width: 32, height: 16, alpha: true))
    }

    /// A three-frame animation in `format`.
    static func animated(format: ImageFormat = .undefined) -> Image {
        let colors = [TestBitmaps.red, TestBitmaps.green, TestBitmaps.blue]
        let frames = colors.map { ImageFrame(bitmap: Bitmap(width: 16, height: 16, fill: $0), duration: 0.1) }
        return Image(frames: frames, loopCount: 0, format: format)
    }

    /// PNG bytes of a `width`×`height` picture.
    static func pngData(width: Int = 64, height: Int = 48) throws -> Data {
        try PNGCoder().encode(opaque(width: width, height: height), as: .png, options: .default)
    }

    /// JPEG bytes of a `width`×`height` picture.
    static func jpegData(width: Int = 64, height: Int = 48) throws -> Data {
        try JPEGCoder().encode(opaque(width: width, height: height), as: .jpeg, options: .default)
    }
}

extension ImageCache {
    /// The completion-handler query, returning what it delivered (for tests that ignore tokens).
    func queryResult(forKey key: String?, options: WebImageOptions = [], context: WebImageContext = .none,
                     cacheType: ImageCacheType = .all) async -> ImageCacheQueryResult {
        await queryImage(forKey: key, options: options, context: context, cacheType: cacheType)
    }
}
