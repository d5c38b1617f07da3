import Foundation

/// A decoded image: a still bitmap, or an animation whose frames are held or decoded on request.
///
/// `Image` is immutable and `Sendable`; share it freely between tasks. It is a class so that the
/// memory cache can hand out the same object again and track it weakly (see `MemoryCache`).
/// A still image and the first frame of an animation (the poster, ``bitmap``) are always decoded,
/// with EXIF orientation applied. The other frames of a decoded animation are decoded when asked
/// for (``frame(at:)``, through ``animation``) unless the decode was told to preload them all,
/// so no property here silently decodes every frame of a large animation.
public final class Image: Sendable {
    /// Frames held in memory: every frame of an image built from frames or preloaded, else the
    /// poster alone (``animation`` decodes the rest).
    let heldFrames: [ImageFrame]
    /// The lazily decoded frames of an animation; nil when every frame is in `heldFrames`.
    public let animation: AnimatedFrames?
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
    /// The ``AnimatedImageFactory/name`` of the factory that made this image (SDWebImage's
    /// animated image class); nil for images the coders decoded or that were built in memory.
    public let animatedImageFactoryName: String?

    /// Creates an image from frames held in memory; `frames` must not be empty and all frames
    /// share one size.
    public init(frames: [ImageFrame], loopCount: Int = 0, format: ImageFormat = .undefined,
                scale: Double = 1, decodeOptions: DecodeOptions? = nil, isPartial: Bool = false,
                colorProfile: ColorProfile? = nil) {
        precondition(!frames.isEmpty, "an Image needs at least one frame")
        self.heldFrames = frames
        self.animation = nil
        self.loopCount = frames.count > 1 ? max(0, loopCount) : 0
        self.format = format
        self.scale = scale >= 1 ? scale : 1
        self.decodeOptions = decodeOptions
        self.isPartial = isPartial
        self.colorProfile = colorProfile
        self.animatedImageFactoryName = nil
    }

    /// Creates an animated image whose frames `animation` decodes on request; its poster is
    /// ``bitmap``. An animation of one frame is a still image.
    public init(animation: AnimatedFrames, format: ImageFormat = .undefined, scale: Double = 1,
                decodeOptions: DecodeOptions? = nil, isPartial: Bool = false,
                colorProfile: ColorProfile? = nil) {
        let still = animation.frameCount == 1
        self.heldFrames = [ImageFrame(bitmap: animation.poster, duration: still ? 0 : animation.duration(at: 0))]
        self.animation = still ? nil : animation
        self.loopCount = still ? 0 : max(0, animation.loopCount)
        self.format = format
        self.scale = scale >= 1 ? scale : 1
        self.decodeOptions = decodeOptions
        self.isPartial = isPartial
        self.colorProfile = colorProfile
        self.animatedImageFactoryName = nil
    }

    /// `source` with another factory name.
    private init(_ source: Image, animatedImageFactoryName: String?) {
        self.heldFrames = source.heldFrames
        self.animation = source.animation
        self.loopCount = source.loopCount
        self.format = source.format
        self.scale = source.scale
        self.decodeOptions = source.decodeOptions
        self.isPartial = source.isPartial
        self.colorProfile = source.colorProfile
        self.animatedImageFactoryName = animatedImageFactoryName
    }

    /// This image marked as made by the factory named `name` (itself when it already is).
    package func markedAsMade(byFactory name: String?) -> Image {
        name == animatedImageFactoryName ? self : Image(self, animatedImageFactoryName: name)
    }

    /// A still image from one bitmap.
    public convenience init(bitmap: Bitmap, format: ImageFormat = .undefined, scale: Double = 1,
                            decodeOptions: DecodeOptions? = nil, isPartial: Bool = false,
                            colorProfile: ColorProfile? = nil) {
        self.init(frames: [ImageFrame(bitmap: bitmap)], format: format, scale: scale,
                  decodeOptions: decodeOptions, isPartial: isPartial, colorProfile: colorProfile)
    }

    /// The first frame's pixels (the whole image for a still; the poster of an animation).
    public var bitmap: Bitmap { heldFrames[0].bitmap }
    /// Size in pixels.
    public var pixelSize: PixelSize { heldFrames[0].bitmap.size }
    /// Width in pixels.
    public var width: Int { heldFrames[0].bitmap.width }
    /// Height in pixels.
    public var height: Int { heldFrames[0].bitmap.height }
    /// Size in points: pixels divided by ``scale``.
    public var pointSize: (width: Double, height: Double) {
        (Double(width) / scale, Double(height) / scale)
    }
    /// Number of frames (SDWebImage's `animatedImageFrameCount`); known without decoding them.
    public var frameCount: Int { animation?.frameCount ?? heldFrames.count }
    /// True when there is more than one frame.
    public var isAnimated: Bool { frameCount > 1 }
    /// Display time of frame `index` in seconds (SDWebImage's `animatedImageDuration(at:)`).
    public func frameDuration(at index: Int) -> Double {
        animation?.duration(at: index) ?? heldFrames[index].duration
    }
    /// Total display time of one loop of the animation, in seconds.
    public var duration: Double {
        if let animation { return animation.header.durations.reduce(0, +) }
        return heldFrames.reduce(0) { $0 + $1.duration }
    }
    /// Frame `index` with its display time (SDWebImage's `animatedImageFrame(at:)`): held, or
    /// decoded now. Throws when a lazily decoded frame's data is damaged.
    public func frame(at index: Int) throws -> ImageFrame {
        guard let animation else { return heldFrames[index] }
        return ImageFrame(bitmap: try animation.frame(at: index), duration: animation.duration(at: index))
    }
    /// Every frame, decoding those not held: for callers that need them all at once (an encoder
    /// that cannot stream). Refused with ``WebImageError/Code/imageTooLarge`` when they would pass
    /// `limits` (by default the decode options' limits), so a huge animation is never expanded.
    public func allFrames(limits: DecodeLimits? = nil) throws -> [ImageFrame] {
        guard let animation else { return heldFrames }
        let limits = limits ?? decodeOptions?.limits ?? .default
        try limits.checkAnimation(pixelSize, frames: frameCount, format: format)
        return try (0..<animation.frameCount).map { try frame(at: $0) }
    }
    /// Decodes every frame now and keeps them (SDWebImage's `preloadAllFrames`), within the
    /// decode limits; a no-op for images whose frames are all held.
    public func preloadAllFrames() throws {
        try animation?.preloadAllFrames(limits: decodeOptions?.limits ?? .default)
    }
    /// Drops decoded frames other than the poster (SDWebImage's `unloadAllFrames`).
    public func unloadAllFrames() { animation?.unloadAllFrames() }
    /// True when every frame is in memory (SDWebImage's `isAllFramesLoaded`).
    public var isAllFramesLoaded: Bool { animation?.isAllFramesLoaded ?? true }
    /// The compressed bytes a lazily decoded animation decodes from (SDWebImage's
    /// `animatedImageData`); nil for stills and images built in memory.
    public var animatedImageData: Data? { animation?.data }
    /// True when the decoder was asked for a thumbnail (the image may be smaller than the source).
    public var isThumbnail: Bool {
        guard let size = decodeOptions?.thumbnailPixelSize else { return false }
        return !size.isEmpty
    }
    /// The cost the memory cache charges for this image: the bytes of the frames it holds, plus,
    /// for a lazily decoded animation, its compressed data and the frames its buffer holds now.
    public var memoryCost: Int {
        let held = heldFrames.reduce(0) { $0 + $1.bitmap.byteCount }
        guard let animation else { return held }
        return held + (animation.data?.count ?? 0) + animation.heldBytes
    }
    /// True when any pixel of the first frame is not fully opaque.
    public var hasAlpha: Bool { heldFrames[0].bitmap.hasAlpha }

    /// This image reduced to its first frame (itself when it is already still).
    public func firstFrameOnly() -> Image {
        guard isAnimated else { return self }
        return Image(frames: [ImageFrame(bitmap: bitmap)], loopCount: 0, format: format,
                     scale: scale, decodeOptions: decodeOptions, isPartial: isPartial, colorProfile: colorProfile)
    }

    /// This image with another scale (itself when unchanged or when `scale` is below 1).
    public func withScale(_ scale: Double) -> Image {
        guard scale >= 1, scale != self.scale else { return self }
        return replacingMetadata(format: format, loopCount: loopCount, scale: scale,
                                 decodeOptions: decodeOptions, colorProfile: colorProfile)
    }

    /// The same frames (held or lazy) with other metadata.
    func replacingMetadata(format: ImageFormat, loopCount: Int, scale: Double,
                           decodeOptions: DecodeOptions?, colorProfile: ColorProfile?) -> Image {
        if let animation {
            let frames = loopCount == animation.loopCount ? animation : animation.withLoopCount(loopCount)
            return Image(animation: frames, format: format, scale: scale, decodeOptions: decodeOptions,
                         isPartial: isPartial, colorProfile: colorProfile).markedAsMade(byFactory: animatedImageFactoryName)
        }
        return Image(frames: heldFrames, loopCount: loopCount, format: format, scale: scale,
                     decodeOptions: decodeOptions, isPartial: isPartial, colorProfile: colorProfile)
            .markedAsMade(byFactory: animatedImageFactoryName)
    }
}

extension Image: CustomStringConvertible {
    /// Size, frame count, format and scale on one line, for logs.
    public var description: String {
        "Image(\(pixelSize), \(format), frames: \(frameCount), scale: \(scale))"
    }
}
