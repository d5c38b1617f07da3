import CAVIF
import Foundation

/// Builds the image of an AVIF sequence (`avis`): by default its frames are decoded when asked for
/// (``AVIFAnimationFrameDecoder``); with ``DecodeOptions/preloadsAllFrames`` every frame is
/// decoded now, within ``DecodeLimits/maxTotalBytes``.
///
/// Frame count and durations come from the track's sample table, read when the container is
/// parsed, so they are known before any frame is decoded. libavif 0.11 does not report an edit
/// list's repetitions, and avifenc writes none: a sequence loops forever (loop count 0), as
/// browsers play one without an edit list.
enum AVIFAnimationDecoder {
    /// `decoder` has parsed the file (`bytes` of `data`); `stored` is its checked frame size.
    static func decode(_ decoder: UnsafeMutablePointer<avifDecoder>, data: Data, stored: PixelSize,
                       options: DecodeOptions) throws -> Image {
        let durations = try self.durations(decoder)
        let transforms = AVIFTransforms(decoder.pointee.image)
        let cropped = PixelSize(width: Int(transforms.crop.width), height: Int(transforms.crop.height))
        let storedTarget = DecodedOutput.storedTarget(cropped, orientation: transforms.orientation, options: options,
                                                      frameCount: durations.count)
        let frameSize = transforms.orientation.turning(storedTarget)
        if options.decodesFramesLazily {
            guard durations.count <= options.limits.maxFrames else {
                throw WebImageError(.imageTooLarge,
                    "The AVIF sequence has \(durations.count) frames, over the limit of \(options.limits.maxFrames).")
            }
            let frames = try AVIFAnimationFrameDecoder(data: data, stored: stored, storedTarget: storedTarget,
                                                       options: options)
            let poster = try frames.decodeFrame(at: 0)
            let profile = frames.color?.profile
            let header = AnimationHeader(loopCount: 0, durations: durations, frameSize: frameSize)
            let animation = AnimatedFrames(header: header, data: data, poster: poster, decoder: frames)
            return Image(animation: animation, format: .avif, scale: options.scaleFactor, decodeOptions: options,
                         colorProfile: profile)
        }
        try options.limits.checkAnimation(frameSize, frames: durations.count, format: .avif)
        var color: ColorManagement.Plan?
        var frames: [ImageFrame] = []
        frames.reserveCapacity(durations.count)
        for (index, duration) in durations.enumerated() {
            let image = try AVIFDecoder.decodeImage(decoder, at: index, stored: stored)
            let plan = color ?? AVIFColor.plan(image, options: options)
            color = plan
            let bitmap = try frame(image, color: plan, storedTarget: storedTarget)
            frames.append(ImageFrame(bitmap: bitmap, duration: duration))
        }
        return Image(frames: frames, loopCount: 0, format: .avif, scale: options.scaleFactor,
                     decodeOptions: options, colorProfile: color?.profile)
    }

    /// One decoded frame as shown: cropped to its clean aperture, colour-converted by `color`,
    /// resized to `storedTarget` and turned by its `irot`/`imir`.
    static func frame(_ image: UnsafeMutablePointer<avifImage>, color: ColorManagement.Plan,
                      storedTarget: PixelSize) throws -> Bitmap {
        let transforms = AVIFTransforms(image)
        let bitmap = try AVIFPixels.bitmap(of: image, crop: transforms, color: color)
        return DecodedOutput.finish(bitmap, storedTarget: storedTarget, orientation: transforms.orientation)
    }

    /// Each frame's display time in seconds, from the sample table (by the library's one rule for
    /// very short delays, ``FrameDelay``).
    static func durations(_ decoder: UnsafeMutablePointer<avifDecoder>) throws -> [Double] {
        let count = Int(decoder.pointee.imageCount)
        guard count > 0 else { throw WebImageError.badData("The AVIF sequence has no frames.") }
        return try (0..<count).map { index in
            var timing = avifImageTiming()
            try AVIFFailure.check(avifDecoderNthImageTiming(decoder, UInt32(index), &timing),
                                  "reading the timing of frame \(index + 1) of the AVIF sequence")
            return FrameDelay.displaySeconds(timing.duration.isFinite ? timing.duration : 0)
        }
    }
}
