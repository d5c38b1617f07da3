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
    /// The frames an encoder should write for `image`: only the first when ``firstFrameOnly``,
    /// each shrunk to fit ``maxPixelSize`` (aspect kept, never enlarged).
    public func frames(of image: Image) -> [ImageFrame] {
        let frames = firstFrameOnly ? [image.frames[0]] : image.frames
        guard let box = maxPixelSize, !box.isEmpty else { return frames }
        let target = ImageSizing.scaledSize(image.pixelSize, toFit: box, preserveAspectRatio: true,
                                            allowUpscale: false)
        guard target != image.pixelSize else { return frames }
        return frames.map { ImageFrame(bitmap: Resampler.resize($0.bitmap, to: target), duration: $0.duration) }
    }
}
