/// A decoded image: one or more fully decoded frames plus what is known about where they came from.
///
/// `Image` is immutable and `Sendable`; share it freely between tasks. It is a class so that the
/// memory cache can hand out the same object again and track it weakly (see `MemoryCache`).
/// Decoding is eager: every pixel of every frame is in memory, with EXIF orientation applied.
public final class Image: Sendable {
    /// The frames, in display order; never empty. A still image has one frame with duration 0.
    public let frames: [ImageFrame]
    /// How many times an animation plays; 0 means forever. 0 for still images.
    public let loopCount: Int
    /// The format of the data this image was decoded from (`.undefined` when built in memory).
    public let format: ImageFormat
    /// Points-to-pixels scale, any value ≥ 1 (smaller values become 1): usually 1, or 2 and 3 from
    /// SDWebImage's `@2x`/`@3x` key convention, but a context can ask for others such as 1.5.
    public let scale: Double
    /// The options the decoder was given; `decodeOptions?.thumbnailPixelSize` tells a thumbnail.
    public let decodeOptions: DecodeOptions?
    /// True for a partial image delivered while data is still arriving (progressive loading).
    public let isPartial: Bool
    /// The colour profile the source declared (an embedded ICC profile, a PNG's `sRGB` or
    /// `cHRM`/`gAMA`); nil for untagged sources. With ``DecodeOptions/convertsToSRGB`` on (the
    /// default) the pixels have been converted from it to sRGB; off, they are still in it.
    public let colorProfile: ColorProfile?

    /// Creates an image from frames; `frames` must not be empty and all frames share one size.
    public init(frames: [ImageFrame], loopCount: Int = 0, format: ImageFormat = .undefined,
                scale: Double = 1, decodeOptions: DecodeOptions? = nil, isPartial: Bool = false,
                colorProfile: ColorProfile? = nil) {
        precondition(!frames.isEmpty, "an Image needs at least one frame")
        self.frames = frames
        self.loopCount = frames.count > 1 ? max(0, loopCount) : 0
        self.format = format
        self.scale = scale >= 1 ? scale : 1
        self.decodeOptions = decodeOptions
        self.isPartial = isPartial
        self.colorProfile = colorProfile
    }

    /// A still image from one bitmap.
    public convenience init(bitmap: Bitmap, format: ImageFormat = .undefined, scale: Double = 1,
                            decodeOptions: DecodeOptions? = nil, isPartial: Bool = false,
                            colorProfile: ColorProfile? = nil) {
        self.init(frames: [ImageFrame(bitmap: bitmap)], format: format, scale: scale,
                  decodeOptions: decodeOptions, isPartial: isPartial, colorProfile: colorProfile)
    }

    /// The first frame's pixels (the whole image for a still).
    public var bitmap: Bitmap { frames[0].bitmap }
    /// Size in pixels.
    public var pixelSize: PixelSize { frames[0].bitmap.size }
    /// Width in pixels.
    public var width: Int { frames[0].bitmap.width }
    /// Height in pixels.
    public var height: Int { frames[0].bitmap.height }
    /// Size in points: pixels divided by ``scale``.
    public var pointSize: (width: Double, height: Double) {
        (Double(width) / scale, Double(height) / scale)
    }
    /// True when there is more than one frame.
    public var isAnimated: Bool { frames.count > 1 }
    /// Total display time of one loop of the animation, in seconds.
    public var duration: Double { frames.reduce(0) { $0 + $1.duration } }
    /// True when the decoder was asked for a thumbnail (the image may be smaller than the source).
    public var isThumbnail: Bool {
        guard let size = decodeOptions?.thumbnailPixelSize else { return false }
        return !size.isEmpty
    }
    /// Bytes held by all frame bitmaps: the cost the memory cache charges for this image.
    public var memoryCost: Int { frames.reduce(0) { $0 + $1.bitmap.byteCount } }
    /// True when any pixel of the first frame is not fully opaque.
    public var hasAlpha: Bool { frames[0].bitmap.hasAlpha }

    /// This image reduced to its first frame (itself when it is already still).
    public func firstFrameOnly() -> Image {
        guard isAnimated else { return self }
        return Image(frames: [ImageFrame(bitmap: frames[0].bitmap)], loopCount: 0, format: format,
                     scale: scale, decodeOptions: decodeOptions, isPartial: isPartial, colorProfile: colorProfile)
    }

    /// This image with another scale (itself when unchanged or when `scale` is below 1).
    public func withScale(_ scale: Double) -> Image {
        guard scale >= 1, scale != self.scale else { return self }
        return Image(frames: frames, loopCount: loopCount, format: format, scale: scale,
                     decodeOptions: decodeOptions, isPartial: isPartial, colorProfile: colorProfile)
    }
}

extension Image: CustomStringConvertible {
    /// Size, frame count, format and scale on one line, for logs.
    public var description: String {
        "Image(\(pixelSize), \(format), frames: \(frames.count), scale: \(scale))"
    }
}
