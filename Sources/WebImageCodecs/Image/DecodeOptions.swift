/// How to decode: which frames, at what size, within what limits.
///
/// The defaults decode at full size (an animation's frames when they are asked for), with EXIF
/// orientation applied, refusing images whose decoded size would pass ``DecodeLimits/default``.
public struct DecodeOptions: Sendable, Hashable {
    /// Decode only the first frame of an animation (SDWebImage's `decodeFirstFrameOnly`).
    public var firstFrameOnly: Bool
    /// Decode every frame of an animation now and hold them all (SDWebImage's
    /// `preloadAllFrames`), within ``DecodeLimits/maxTotalBytes``. Off (the default), an
    /// animation holds its compressed data and decodes frames when they are asked for.
    public var preloadsAllFrames: Bool
    /// Points-to-pixels scale recorded on the image; values below 1 mean 1.
    public var scaleFactor: Double
    /// Decode to fit this box (a thumbnail); `nil` or an empty size means full size.
    /// Never scales up. Decoders that can (JPEG DCT scaling, WebP) decode small directly.
    public var thumbnailPixelSize: PixelSize?
    /// With a thumbnail size: keep the aspect ratio (fit inside the box) or stretch to it.
    public var preserveAspectRatio: Bool
    /// Scale the decode down so all frames together fit in this many bytes (RGBA, 4 per pixel).
    /// Takes priority over ``thumbnailPixelSize``; `nil` = no byte budget.
    public var scaleDownLimitBytes: Int?
    /// Hard limits that make hostile images fail fast instead of exhausting memory.
    public var limits: DecodeLimits
    /// Convert pixels tagged with an ICC profile (or a PNG's `cHRM`/`gAMA`) to sRGB, as browsers
    /// show them (default on). Off, the pixels keep the source's colours (for example wide gamut);
    /// ``Image/colorProfile`` names their space either way.
    public var convertsToSRGB: Bool
    /// The filter a decode resizes with to reach ``thumbnailPixelSize`` or the byte budget, after
    /// any scaling the codec does itself (JPEG DCT scaling, WebP): ``ResamplingFilter/lanczos3``
    /// unless set. The frames of an animation decoded lazily are resized with the default.
    public var resamplingFilter: ResamplingFilter

    /// Options with every field settable; the defaults decode at full size, animations lazily.
    public init(firstFrameOnly: Bool = false, scaleFactor: Double = 1,
                thumbnailPixelSize: PixelSize? = nil, preserveAspectRatio: Bool = true,
                scaleDownLimitBytes: Int? = nil, limits: DecodeLimits = .default, convertsToSRGB: Bool = true,
                preloadsAllFrames: Bool = false, resamplingFilter: ResamplingFilter = .default) {
        self.firstFrameOnly = firstFrameOnly
        self.preloadsAllFrames = preloadsAllFrames
        self.scaleFactor = scaleFactor
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.limits = limits
        self.convertsToSRGB = convertsToSRGB
        self.resamplingFilter = resamplingFilter
    }

    /// Full-size decode; an animation's frames are decoded when asked for.
    public static let `default` = DecodeOptions()

    /// True when an animation should be decoded lazily: neither its first frame only nor every
    /// frame now was asked for.
    var decodesFramesLazily: Bool { !firstFrameOnly && !preloadsAllFrames }

    /// True when the caller asked for a reduced size (a thumbnail box or a byte budget), so a
    /// decoder may scale an oversized image down instead of refusing it.
    public var allowsScaleDown: Bool {
        (thumbnailPixelSize.map { !$0.isEmpty } ?? false) || scaleDownLimitBytes != nil
    }

    /// The size to produce for a source of `source` pixels with `frameCount` frames:
    /// the byte budget first, then the thumbnail box, never larger than the source.
    public func targetSize(for source: PixelSize, frameCount: Int = 1) -> PixelSize {
        if let limit = scaleDownLimitBytes {
            return ImageSizing.scaledSize(source, limitBytes: limit, frameCount: frameCount)
        }
        if let box = thumbnailPixelSize, !box.isEmpty {
            return ImageSizing.scaledSize(source, toFit: box, preserveAspectRatio: preserveAspectRatio,
                                          allowUpscale: false)
        }
        return source
    }
}

/// Upper bounds on what a decoder will allocate. Checked from the header, before any pixel
/// memory is allocated, so a decompression bomb is refused in microseconds.
public struct DecodeLimits: Sendable, Hashable {
    /// Largest canvas, in pixels, a decoder will allocate for one frame.
    public var maxPixels: Int
    /// Largest total of decoded frames held at once, in bytes (RGBA): every frame of an animation
    /// decoded eagerly (``DecodeOptions/preloadsAllFrames``, ``Image/allFrames(limits:)``). A
    /// lazily decoded animation holds one frame plus its player's buffer, so it may be longer.
    public var maxTotalBytes: Int
    /// Most frames an animation may have.
    public var maxFrames: Int

    /// Limits of `maxPixels` per frame, `maxTotalBytes` for all frames and `maxFrames`.
    public init(maxPixels: Int = 100_000_000, maxTotalBytes: Int = 1 << 30, maxFrames: Int = 10_000) {
        self.maxPixels = maxPixels
        self.maxTotalBytes = maxTotalBytes
        self.maxFrames = maxFrames
    }

    /// 100 megapixels per frame (400 MB as RGBA), 1 GiB for all frames, 10,000 frames: every
    /// real camera photo decodes. A server decoding untrusted images several at a time should
    /// lower ``maxPixels`` (or ask for a thumbnail or byte budget, which scales down instead).
    public static let `default` = DecodeLimits()

    /// Throws ``WebImageError/Code/imageTooLarge`` when a `size` canvas passes ``maxPixels``.
    public func check(_ size: PixelSize, format: ImageFormat) throws {
        guard size.width > 0, size.height > 0 else {
            throw WebImageError.badData("The \(format.rawValue) header declares an empty image (\(size)).")
        }
        if size.area > maxPixels {
            throw WebImageError(.imageTooLarge,
                "The \(format.rawValue) image is \(size) (\(size.area) pixels), over the decode limit of \(maxPixels) pixels; ask for a thumbnail or raise DecodeLimits.maxPixels.")
        }
    }

    /// Throws when `frames` frames of `size` would pass ``maxTotalBytes`` or ``maxFrames``.
    public func checkAnimation(_ size: PixelSize, frames: Int, format: ImageFormat) throws {
        if frames > maxFrames {
            throw WebImageError(.imageTooLarge,
                "The \(format.rawValue) animation has \(frames) frames, over the limit of \(maxFrames).")
        }
        let (bytes, overflow) = size.area.multipliedReportingOverflow(by: 4 * max(frames, 1))
        if overflow || bytes > maxTotalBytes {
            throw WebImageError(.imageTooLarge,
                "The \(format.rawValue) animation would decode to more than \(maxTotalBytes) bytes (\(frames) frames of \(size)); use firstFrameOnly or raise DecodeLimits.maxTotalBytes.")
        }
    }
}
