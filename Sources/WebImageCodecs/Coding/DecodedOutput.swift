/// The last steps of decoders that cannot scale while decoding (PNG, APNG, AVIF, HEIF): resample
/// to the requested size, then turn upright.
enum DecodedOutput {
    /// `frames` (all the same stored size) resized to `options.targetSize` — computed on the
    /// displayed, oriented size — and turned upright for `orientation`.
    static func finish(_ frames: [Bitmap], orientation: EXIFOrientation, options: DecodeOptions) -> [Bitmap] {
        guard let first = frames.first else { return frames }
        let stored = first.size
        let displayed = orientation.swapsDimensions
            ? PixelSize(width: stored.height, height: stored.width) : stored
        let target = options.targetSize(for: displayed, frameCount: frames.count)
        let storedTarget = orientation.swapsDimensions
            ? PixelSize(width: target.height, height: target.width) : target
        return frames.map { frame in
            let sized = storedTarget == stored || storedTarget.isEmpty
                ? frame : Resampler.resize(frame, to: storedTarget)
            return sized.applying(orientation)
        }
    }
}
