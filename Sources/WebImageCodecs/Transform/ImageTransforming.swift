/// Turns one image into another (resize, crop, round corners, …) after decoding and before
/// caching, as SDWebImage's `SDImageTransformer` does.
///
/// The transformed image is cached under a key derived from ``transformerKey``, so the key must
/// be stable and must change whenever the output would. The built-in transformers print their
/// keys exactly as SDWebImage does, so cache keys stay compatible. Type names map one to one:
/// `RoundCornerTransformer` ↔ `SDImageRoundCornerTransformer`, `ResizingTransformer` ↔
/// `SDImageResizingTransformer`, `CroppingTransformer` ↔ `SDImageCroppingTransformer`,
/// `FlippingTransformer` ↔ `SDImageFlippingTransformer`, `RotationTransformer` ↔
/// `SDImageRotationTransformer`, `TintTransformer` ↔ `SDImageTintTransformer`, `BlurTransformer`
/// ↔ `SDImageBlurTransformer`, `PipelineTransformer` ↔ `SDImagePipelineTransformer`.
///
/// Geometry (sizes, rects, radii, border widths) is in points, like SDWebImage: multiplied by the
/// image's ``Image/scale`` to get pixels. Built-ins transform every frame of an animated image;
/// whether an animated image is transformed at all is the manager's decision.
public protocol ImageTransforming: Sendable {
    /// A stable description of this transformer and its parameters; part of the cache key.
    var transformerKey: String { get }

    /// The transformed image, or `nil` when the transformation fails (the caller then keeps the
    /// original). `key` is the image's cache key, for transformers that depend on it.
    func transform(_ image: Image, forKey key: String) -> Image?

    /// Whether the result keeps the source's format, loop count, scale and decode options
    /// (true by default). Applied by ``transformedImage(_:forKey:)``.
    var preserveImageMetadata: Bool { get }
}

extension ImageTransforming {
    /// Built-ins and custom transformers keep the source's metadata unless they say otherwise.
    public var preserveImageMetadata: Bool { true }

    /// Runs ``transform(_:forKey:)`` and, when ``preserveImageMetadata`` is true, copies the
    /// source's format, loop count, scale and decode options onto the result. Callers (the
    /// manager, the pipeline) use this rather than `transform` directly.
    public func transformedImage(_ image: Image, forKey key: String) -> Image? {
        guard let result = transform(image, forKey: key) else { return nil }
        guard preserveImageMetadata, result !== image else { return result }
        return result.carryingMetadata(of: image)
    }
}

extension Image {
    /// This image's frames with `source`'s format, loop count, scale, decode options, colour
    /// profile and factory name (a transformed animation stays of its factory's kind).
    func carryingMetadata(of source: Image) -> Image {
        if format == source.format, loopCount == source.loopCount, scale == source.scale,
           decodeOptions == source.decodeOptions, colorProfile == source.colorProfile {
            return markedAsMade(byFactory: source.animatedImageFactoryName)
        }
        return replacingMetadata(format: source.format, loopCount: source.loopCount, scale: source.scale,
                                 decodeOptions: source.decodeOptions, colorProfile: source.colorProfile)
            .markedAsMade(byFactory: source.animatedImageFactoryName)
    }

    /// A new image made by applying `body` to every frame's bitmap; durations and scale are kept,
    /// other metadata is left for ``ImageTransforming/transformedImage(_:forKey:)`` to copy.
    /// Held frames are mapped now; the frames of a lazily decoded animation are mapped when they
    /// are decoded (the poster now). `nil` when `body` fails for a frame mapped now or the frames
    /// would pass the decode limits.
    func mappingFrames(_ body: @escaping @Sendable (Bitmap) -> Bitmap?) -> Image? {
        if let animation {
            guard let poster = body(animation.poster) else { return nil }
            let header = AnimationHeader(loopCount: animation.loopCount, durations: animation.header.durations,
                                         frameSize: poster.size)
            let decoder = MappedFrameDecoder(source: animation, transform: body)
            let mapped = AnimatedFrames(header: header, data: nil, poster: poster, decoder: decoder,
                                        bufferLimit: animation.bufferLimit == Int.max ? 0 : animation.bufferLimit)
            return Image(animation: mapped, format: .undefined, scale: scale, decodeOptions: nil, isPartial: isPartial)
        }
        var mapped: [ImageFrame] = []
        mapped.reserveCapacity(heldFrames.count)
        for frame in heldFrames {
            guard let bitmap = body(frame.bitmap) else { return nil }
            if let first = mapped.first, first.bitmap.size != bitmap.size { return nil }
            mapped.append(ImageFrame(bitmap: bitmap, duration: frame.duration))
        }
        return Image(frames: mapped, loopCount: 0, format: .undefined, scale: scale,
                     decodeOptions: nil, isPartial: isPartial)
    }

    /// Whether a transform may allocate frames of `size`: positive, within the per-frame pixel
    /// limit and, for all frames together, within the byte limit (the source's limits, or the
    /// defaults). Guards every transform against absurd parameters.
    func allowsTransformOutput(_ size: PixelSize) -> Bool {
        guard !size.isEmpty else { return false }
        let limits = decodeOptions?.limits ?? .default
        do {
            try limits.check(size, format: format)
            // Lazily decoded frames are produced one at a time: only held frames add up.
            if animation == nil { try limits.checkAnimation(size, frames: frameCount, format: format) }
            return true
        } catch {
            return false
        }
    }
}
