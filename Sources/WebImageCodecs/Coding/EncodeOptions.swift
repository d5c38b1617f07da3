/// How to encode: quality, size caps, and what to do with alpha in formats without it.
public struct EncodeOptions: Sendable, Hashable {
    /// 0 (smallest) to 1 (best) for lossy formats (JPEG, lossy WebP). Default 1, as SDWebImage.
    public var compressionQuality: Double
    /// Colour under transparent pixels when encoding to a format without alpha (JPEG).
    public var backgroundColor: RGBA
    /// Shrink to fit this box before encoding (aspect kept, never enlarged); nil = as is.
    public var maxPixelSize: PixelSize?
    /// Target size in bytes for JPEG and lossy WebP: quality is lowered until the output fits
    /// (or the lowest quality is reached). Overrides ``compressionQuality``.
    public var maxFileSize: Int?
    /// Encode only the first frame of an animation.
    public var firstFrameOnly: Bool
    /// WebP only: lossless instead of lossy.
    public var lossless: Bool
    /// AVIF only: the executable that encodes large still images in a child process, which is
    /// killed when the encode's ``WorkCancellation`` is cancelled; nil encodes in this process.
    /// An AVIF sequence is encoded in this process and stops between frames instead.
    public var encoderProcess: EncoderProcess?

    /// Options with every field settable; `compressionQuality` is clamped to 0…1.
    public init(compressionQuality: Double = 1, backgroundColor: RGBA = .white,
                maxPixelSize: PixelSize? = nil, maxFileSize: Int? = nil,
                firstFrameOnly: Bool = false, lossless: Bool = false) {
        self.compressionQuality = min(max(compressionQuality, 0), 1)
        self.backgroundColor = backgroundColor
        self.maxPixelSize = maxPixelSize
        self.maxFileSize = maxFileSize
        self.firstFrameOnly = firstFrameOnly
        self.lossless = lossless
    }

    /// Best quality, white background, original size, every frame.
    public static let `default` = EncodeOptions()
}

extension EncodeOptions {
    /// The frames an encoder should write for `image`, produced one at a time: only the first
    /// when ``firstFrameOnly``, each shrunk to fit ``maxPixelSize`` (aspect kept, never enlarged).
    /// An encoder that writes each frame before asking for the next never holds more than one
    /// frame of a lazily decoded animation.
    public func encodeFrames(of image: Image) -> EncodeFrames {
        var target = image.pixelSize
        if let box = maxPixelSize, !box.isEmpty {
            target = ImageSizing.scaledSize(image.pixelSize, toFit: box, preserveAspectRatio: true,
                                            allowUpscale: false)
        }
        return EncodeFrames(image: image, count: firstFrameOnly ? 1 : image.frameCount, size: target)
    }
}

/// The frames an encoder writes, decoded and resized when asked for (see
/// ``EncodeOptions/encodeFrames(of:)``).
public struct EncodeFrames: Sendable {
    /// The image the frames come from.
    public let image: Image
    /// How many frames to write.
    public let count: Int
    /// The size every written frame has.
    public let size: PixelSize

    /// True when more than one frame is written.
    public var isAnimated: Bool { count > 1 }
    /// The loop count to write (0 = forever).
    public var loopCount: Int { image.loopCount }

    /// Frame `index` at ``size`` with its display time (0 for a single written frame).
    public func frame(at index: Int) throws -> ImageFrame {
        let frame = count == 1 && index == 0 ? ImageFrame(bitmap: image.bitmap) : try image.frame(at: index)
        guard frame.bitmap.size != size else { return frame }
        return ImageFrame(bitmap: Resampler.resize(frame.bitmap, to: size), duration: frame.duration)
    }

    /// True when every written frame is opaque; decodes each lazily decoded frame to find out,
    /// so encoders that must know before writing call it only for held frames.
    var heldFramesAreOpaque: Bool {
        guard image.animation == nil else { return false }
        return (0..<count).allSatisfy { !image.heldFrames[$0].bitmap.hasAlpha }
    }
}
