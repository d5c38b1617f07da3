import WebImageCodecs
import Foundation

/// The incremental decoder of one progressive download, created once enough bytes have arrived
/// for the coder to recognise them. Used by one partial decode at a time.
final class PartialImageDecoder: @unchecked Sendable {  // `decoder` is guarded by `lock`
    private let coder: any ProgressiveImageCoding
    private let options: DecodeOptions
    private let lock = NSLock()
    private var decoder: (any IncrementalImageDecoding)?

    /// Nil when `coder` cannot decode progressively at all. Partial images come from the
    /// request's coder even when an animated-image factory makes the final one.
    init?(coder: any ImageCoding, options: DecodeOptions) {
        let coder = (coder as? AnimatedImageFactoryCoder)?.base ?? coder
        guard let progressive = coder as? any ProgressiveImageCoding else { return nil }
        self.coder = progressive
        self.options = options
    }

    /// Forgets the bytes seen so far: the next body starts from its first byte (a retried download).
    func reset() {
        lock.withLock { decoder = nil }
    }

    /// The image visible in `data` so far, or nil when nothing is usable yet.
    func partialImage(from data: Data) -> Image? {
        lock.withLock {
            if decoder == nil {
                guard coder.canDecodeIncrementally(data) else { return nil }
                decoder = coder.makeIncrementalDecoder(options: options)
            }
            guard let decoder else { return nil }
            decoder.update(data, finished: false)
            guard let image = try? decoder.currentImage(), !image.pixelSize.isEmpty else { return nil }
            return image
        }
    }
}
