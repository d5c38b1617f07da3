import Foundation

/// Builds the image of an animated JPEG XL: by default its frames are decoded when asked for
/// (``JXLAnimationFrameDecoder``); with ``DecodeOptions/preloadsAllFrames`` every frame is
/// decoded now, within ``DecodeLimits/maxTotalBytes``.
enum JXLAnimationDecoder {
    /// `session` has read the basic info (its size checked against the limits); `scan` holds the
    /// frame headers.
    static func decode(_ session: JXLDecodeSession, scan: JXLAnimationScan, data: Data,
                       options: DecodeOptions) throws -> Image {
        let target = options.targetSize(for: session.size, frameCount: scan.frameCount)
        if options.decodesFramesLazily {
            let decoder = try JXLAnimationFrameDecoder(data: data, options: options, frameSize: target)
            let poster = try decoder.decodeFrame(at: 0)
            let profile = decoder.color.profile
            let header = AnimationHeader(loopCount: scan.loopCount, durations: scan.durations, frameSize: target)
            let frames = AnimatedFrames(header: header, data: data, poster: poster, decoder: decoder)
            return Image(animation: frames, format: .jpegXL, scale: options.scaleFactor, decodeOptions: options,
                         colorProfile: profile)
        }
        try options.limits.checkAnimation(target, frames: scan.frameCount, format: .jpegXL)
        try session.readColorEncoding()
        let color = JXLColor.plan(session, options: options)
        var frames: [ImageFrame] = []
        frames.reserveCapacity(scan.frameCount)
        for duration in scan.durations {
            let frame = try session.decodeFrame(color: color)
            let sized = frame.size == target ? frame : Resampler.resize(frame, to: target)
            frames.append(ImageFrame(bitmap: sized, duration: duration))
        }
        return Image(frames: frames, loopCount: scan.loopCount, format: .jpegXL, scale: options.scaleFactor,
                     decodeOptions: options, colorProfile: color.profile)
    }
}
