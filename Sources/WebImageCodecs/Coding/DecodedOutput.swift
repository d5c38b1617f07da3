/// The last steps of decoders that cannot scale while decoding (PNG, APNG, AVIF, HEIF): resample
/// to the requested size, then turn upright.
enum DecodedOutput {
    /// `frames` (all the same stored size) resized to `options.targetSize` — computed on the
    /// displayed, oriented size — and turned upright for `orientation`.
    static func finish(_ frames: [Bitmap], orientation: EXIFOrientation, options: DecodeOptions) -> [Bitmap] {
        guard let first = frames.first else { return frames }
        let target = storedTarget(first.size, orientation: orientation, options: options, frameCount: frames.count)
        return frames.map { finish($0, storedTarget: target, orientation: orientation, filter: options.resamplingFilter) }
    }

    /// The stored (not yet turned) size `frameCount` frames of `stored` pixels are resized to.
    static func storedTarget(_ stored: PixelSize, orientation: EXIFOrientation, options: DecodeOptions,
                             frameCount: Int) -> PixelSize {
        orientation.turning(options.targetSize(for: orientation.turning(stored), frameCount: frameCount))
    }

    /// One frame resized to `storedTarget` (from ``storedTarget(_:orientation:options:frameCount:)``)
    /// with `filter` and turned upright.
    static func finish(_ frame: Bitmap, storedTarget: PixelSize, orientation: EXIFOrientation,
                       filter: ResamplingFilter = .default) -> Bitmap {
        let sized = storedTarget == frame.size || storedTarget.isEmpty
            ? frame : Resampler.resize(frame, to: storedTarget, filter: filter)
        return sized.applying(orientation)
    }
}
