/// The sizes one JPEG decode works with, chosen from the header before any pixel memory exists.
///
/// Everything here is in *stored* orientation (as the pixels sit in the file); the caller's
/// thumbnail box and byte budget apply to the *displayed* image, so EXIF orientations 5–8 swap
/// the sides before and after sizing.
struct JPEGDecodePlan {
    /// The DCT scaling factor TurboJPEG decodes with.
    let factor: JPEGScaling.Factor
    /// The size TurboJPEG produces.
    let decodeSize: PixelSize
    /// The size the decode is resampled to (equal to `decodeSize` when no resampling is needed).
    let outputSize: PixelSize

    /// Plans the decode of a `source`-sized file; throws ``WebImageError/Code/imageTooLarge`` when
    /// the limits forbid it (full size without a reduced-size request, or even the smallest
    /// DCT scale with one).
    init(source: PixelSize, orientation: EXIFOrientation, options: DecodeOptions) throws {
        let swaps = orientation.swapsDimensions
        func stored(_ size: PixelSize) -> PixelSize {
            swaps ? PixelSize(width: size.height, height: size.width) : size
        }
        let limits = options.limits
        if !options.allowsScaleDown { try limits.check(source, format: .jpeg) }
        var target = stored(options.targetSize(for: stored(source)))
        guard let factor = JPEGScaling.factor(for: source, target: target, maxPixels: limits.maxPixels) else {
            let smallest = JPEGScaling.downscaleFactors[0].scaled(source)
            throw WebImageError(.imageTooLarge,
                "The JPEG image is \(source); even DCT-scaled to \(smallest) it passes the decode limit of \(limits.maxPixels) pixels. Raise DecodeLimits.maxPixels to decode it.")
        }
        let decodeSize = factor.scaled(source)
        if decodeSize.width < target.width || decodeSize.height < target.height {
            target = ImageSizing.scaledSize(target, toFit: decodeSize, preserveAspectRatio: true, allowUpscale: false)
        }
        self.factor = factor
        self.decodeSize = decodeSize
        self.outputSize = target
    }
}
