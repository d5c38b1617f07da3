/// How ``ResizingTransformer`` fits the image into the target size (SDWebImage's `SDImageScaleMode`).
public enum ImageScaleMode: UInt, Sendable, Hashable {
    /// Stretch to exactly the target size, ignoring the aspect ratio.
    case fill = 0
    /// Scale to fit inside, centred on a clear canvas of the target size (letterboxed).
    case aspectFit = 1
    /// Scale to cover the target, cropping the overflow equally on both sides.
    case aspectFill = 2
}

/// Resizes to a size in points (`SDImageResizingTransformer`) with a ``ResamplingFilter``
/// (lanczos3 unless asked otherwise). The output is always exactly `size × scale` pixels.
///
/// Key: `SDImageResizingTransformer({200.000000,100.000000},0)`; another filter than the default
/// is named after the mode (`…,0,area)`).
public struct ResizingTransformer: ImageTransforming {
    /// Target size in points.
    public let size: PointSize
    /// How the image is fitted into `size`.
    public let scaleMode: ImageScaleMode
    /// The filter source pixels are weighed with.
    public let filter: ResamplingFilter

    /// A resize to `size` points, fitted by `scaleMode`, resampled with `filter`.
    public init(size: PointSize, scaleMode: ImageScaleMode = .fill, filter: ResamplingFilter = .default) {
        self.size = size
        self.scaleMode = scaleMode
        self.filter = filter
    }

    /// `SDImageResizingTransformer({w,h},mode)`, as SDWebImage names it in cache keys.
    public var transformerKey: String {
        "SDImageResizingTransformer({\(TransformKey.decimal(size.width)),"
            + "\(TransformKey.decimal(size.height))},\(scaleMode.rawValue)"
            + (filter == .default ? ")" : ",\(filter.rawValue))")
    }

    /// The resized image, every frame; nil for a size that is unusable or past the limits.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        guard let target = PixelGeometry.pixelSize(size, scale: image.scale),
              image.allowsTransformOutput(target) else { return nil }
        let mode = scaleMode, filter = filter
        return image.mappingFrames { Self.resize($0, to: target, mode: mode, filter: filter) }
    }

    /// `bitmap` fitted into `target` pixels according to `mode`, resampled with `filter`.
    static func resize(_ bitmap: Bitmap, to target: PixelSize, mode: ImageScaleMode,
                       filter: ResamplingFilter = .default) -> Bitmap {
        let source = bitmap.size
        if source == target { return bitmap }
        let scaleX = Double(target.width) / Double(source.width)
        let scaleY = Double(target.height) / Double(source.height)
        switch mode {
        case .fill:
            return Resampler.resize(bitmap, to: target, filter: filter)
        case .aspectFit:
            let scale = min(scaleX, scaleY)
            let content = PixelSize(
                width: min(max(Int((Double(source.width) * scale).rounded()), 1), target.width),
                height: min(max(Int((Double(source.height) * scale).rounded()), 1), target.height))
            let scaled = Resampler.resize(bitmap, to: content, filter: filter)
            if content == target { return scaled }
            return PixelCompositing.place(scaled, onClearCanvas: target,
                                          left: (target.width - content.width) / 2,
                                          top: (target.height - content.height) / 2)
        case .aspectFill:
            // The centred source window with the target's aspect ratio, scaled to the target.
            let scale = max(scaleX, scaleY)
            let windowW = min(Double(target.width) / scale, Double(source.width))
            let windowH = min(Double(target.height) / scale, Double(source.height))
            let window = Resampler.Window(x: (Double(source.width) - windowW) / 2,
                                          y: (Double(source.height) - windowH) / 2,
                                          width: windowW, height: windowH)
            return Resampler.resize(bitmap, window: window, to: target, filter: filter)
        }
    }
}
