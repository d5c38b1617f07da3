import Foundation

/// Turns GIF bytes into an ``Image``: SDWebImage's rules for loop count and frame delays, the
/// caller's thumbnail or byte budget, and browser-like tolerance of truncated files.
struct GIFDecoder {
    let options: DecodeOptions

    /// Decodes every complete frame of `data` (only the first with `firstFrameOnly`).
    ///
    /// A file damaged or cut short after at least one complete frame yields the complete
    /// frames, as browsers show them; without one it is ``WebImageError/Code/badImageData``.
    func decode(_ data: Data) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badData("The GIF data is empty.") }
        if options.decodesFramesLazily, let lazy = try decodeLazily(data) { return lazy }
        let result = try data.withUnsafeBytes { bytes in try makeReader(data).read(bytes) }
        guard !result.frames.isEmpty else {
            if let unsupported = result.unsupported { throw unsupported }
            let reason = result.stopReason ?? "it has no image"
            throw WebImageError.badData("The GIF has no complete frame (\(reason)); the data is damaged or truncated.")
        }
        return makeImage(result.frames, loopCount: result.loopCount, canvasSize: result.canvasSize,
                         isPartial: false)
    }

    /// The first frame for progressive display: complete when its data is all there, else the
    /// rows decoded so far (`isComplete` false); nil when nothing is drawable yet or the data is bad.
    func decodeFirstFrameSoFar(_ data: Data) -> (image: Image, isComplete: Bool)? {
        var reader = makeReader(data)
        reader.maxFrames = 1
        reader.keepsPartialFirstFrame = true
        guard let result = try? data.withUnsafeBytes({ bytes in try reader.read(bytes) }) else { return nil }
        if let first = result.frames.first {
            return (makeImage([first], loopCount: nil, canvasSize: result.canvasSize, isPartial: true), true)
        }
        guard let partial = result.partialFirstFrame else { return nil }
        return (makeImage([(partial, 0)], loopCount: nil, canvasSize: result.canvasSize, isPartial: true), false)
    }

    /// An animation whose frames after the first are decoded when asked for; nil when the file
    /// has fewer than two complete frames (the eager path then decodes or explains it).
    /// `isPartial`: the data is still arriving, and the frames that have fully arrived play.
    func decodeLazily(_ data: Data, isPartial: Bool = false) throws -> Image? {
        let scan = try data.withUnsafeBytes { try GIFAnimationScan($0, limits: options.limits) }
        guard scan.frames.count > 1, !options.firstFrameOnly else { return nil }
        let frameSize = options.targetSize(for: scan.canvasSize, frameCount: scan.frames.count)
        let durations = scan.frames.map { Self.duration(centiseconds: Int($0.control.DelayTime)) }
        let header = AnimationHeader(loopCount: scan.loopCount ?? 1, durations: durations, frameSize: frameSize)
        let decoder = GIFAnimationDecoder(data: data, scan: scan, limits: options.limits, frameSize: frameSize)
        let poster = try decoder.decodeFrame(at: 0)
        let frames = AnimatedFrames(header: header, data: isPartial ? nil : data, poster: poster, decoder: decoder)
        return Image(animation: frames, format: .gif, scale: options.scaleFactor, decodeOptions: options,
                     isPartial: isPartial)
    }

    private func makeReader(_ data: Data) -> GIFFrameReader {
        var reader = GIFFrameReader(limits: options.limits)
        reader.endsFrame = try? data.withUnsafeBytes { try GIFAnimationScan($0, limits: options.limits).endsFrame }
        if options.firstFrameOnly { reader.maxFrames = 1 }
        // A byte budget depends on the frame count, known only at the end: resize then.
        if options.scaleDownLimitBytes == nil, options.allowsScaleDown {
            reader.frameSize = { [options] canvas in options.targetSize(for: canvas) }
        }
        return reader
    }

    private func makeImage(_ frames: [(bitmap: Bitmap, delay: Int)], loopCount: Int?,
                           canvasSize: PixelSize, isPartial: Bool) -> Image {
        let target = options.targetSize(for: canvasSize, frameCount: frames.count)
        let still = frames.count == 1
        let imageFrames = frames.map { frame in
            ImageFrame(bitmap: Resampler.resize(frame.bitmap, to: target),
                       duration: still ? 0 : Self.duration(centiseconds: frame.delay))
        }
        return Image(frames: imageFrames, loopCount: loopCount ?? 1, format: .gif,
                     scale: options.scaleFactor, decodeOptions: options, isPartial: isPartial)
    }

    /// A frame's display time: the delay in seconds, by ``FrameDelay/displaySeconds(_:)``.
    static func duration(centiseconds: Int) -> Double {
        FrameDelay.displaySeconds(Double(centiseconds) / 100)
    }
}
