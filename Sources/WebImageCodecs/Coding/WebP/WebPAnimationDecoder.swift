import CWebP
import Foundation

/// Decodes animated WebP files into fully composed frames with libwebp's animation decoder.
///
/// libwebp composes each frame on a canvas-sized buffer, so the canvas must pass the pixel limit
/// even when a thumbnail is wanted; the kept frames are then resized to the target size.
enum WebPAnimationDecoder {
    /// `data` is what `bytes` point into: an animation keeps it and decodes frames on request,
    /// unless `options` asks for the first frame only or for every frame now.
    /// `isPartial`: the frames of a download still in progress (the image is marked partial and
    /// keeps no data of its own to store).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, data: Data, features: WebPBitstreamFeatures,
                       options: DecodeOptions, isPartial: Bool = false) throws -> Image {
        let canvas = WebPBitstream.size(of: features)
        try options.limits.check(canvas, format: .webp)
        let container = try WebPContainer(bytes)
        guard container.frameCount > 0 else {
            throw WebImageError.badData("The animated WebP has no frames.")
        }
        let count = options.firstFrameOnly ? 1 : container.frameCount
        let orientation = container.orientation
        let color = ColorManagement.plan(icc: container.iccProfile, source: .rgb, options: options)
        let displayedTarget = options.targetSize(for: orientation.turning(canvas),
                                                 frameCount: count)
        let target = orientation.turning(displayedTarget)
        if options.decodesFramesLazily, container.frameCount > 1 {
            return try decodeLazily(data, container: container, canvas: canvas, storedTarget: target,
                                    color: color, options: options, isPartial: isPartial)
        }
        try options.limits.checkAnimation(target, frames: count, format: .webp)

        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            throw WebImageError.badData("libwebp rejected its animation decoder options (version mismatch).")
        }
        decoderOptions.color_mode = MODE_RGBA
        decoderOptions.use_threads = 0
        var data = WebPData(bytes: bytes.baseAddress, size: bytes.count)
        guard let decoder = WebPAnimDecoderNew(&data, &decoderOptions) else {
            throw WebImageError.badData("The animated WebP is corrupt or truncated; libwebp could not open it.")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0,
              Int(info.canvas_width) == canvas.width, Int(info.canvas_height) == canvas.height else {
            throw WebImageError.badData("The animated WebP's canvas does not match its header.")
        }

        var frames: [ImageFrame] = []
        frames.reserveCapacity(count)
        var previousTimestamp: Int32 = 0
        for index in 0..<count {
            var pixels: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &pixels, &timestamp) != 0, let pixels else {
                throw WebImageError.badData("Frame \(index + 1) of \(count) of the animated WebP could not be decoded; the data is corrupt or truncated.")
            }
            let composed = Bitmap(width: canvas.width, height: canvas.height) { out in
                out.baseAddress!.initialize(from: pixels, count: out.count)
                color.apply(out)
            }
            let bitmap = Resampler.resize(composed, to: target).applying(orientation)
            let duration = count == 1 ? 0 : frameDuration(milliseconds: Int(timestamp) - Int(previousTimestamp))
            frames.append(ImageFrame(bitmap: bitmap, duration: duration))
            previousTimestamp = timestamp
        }
        return Image(frames: frames, loopCount: Int(info.loop_count), format: .webp,
                     scale: options.scaleFactor, decodeOptions: options, isPartial: isPartial,
                     colorProfile: color.profile)
    }

    /// An animation whose frames after the first are decoded when asked for; frames are held
    /// one at a time, so only the frame count is limited, not their total.
    private static func decodeLazily(_ data: Data, container: WebPContainer, canvas: PixelSize,
                                     storedTarget: PixelSize, color: ColorManagement.Plan,
                                     options: DecodeOptions, isPartial: Bool) throws -> Image {
        guard container.frameCount <= options.limits.maxFrames else {
            throw WebImageError(.imageTooLarge, "The WebP animation has \(container.frameCount) frames, over the limit of \(options.limits.maxFrames).")
        }
        guard container.frameMilliseconds.count == container.frameCount else {
            throw WebImageError.badData("The animated WebP's frame headers are truncated.")
        }
        let decoder = try WebPAnimationFrameDecoder(data: data, canvas: canvas, storedTarget: storedTarget,
                                                    orientation: container.orientation, color: color)
        let header = AnimationHeader(loopCount: container.loopCount,
                                     durations: container.frameMilliseconds.map(frameDuration(milliseconds:)),
                                     frameSize: container.orientation.turning(storedTarget))
        let poster = try decoder.decodeFrame(at: 0)
        let frames = AnimatedFrames(header: header, data: isPartial ? nil : data, poster: poster, decoder: decoder)
        return Image(animation: frames, format: .webp, scale: options.scaleFactor, decodeOptions: options,
                     isPartial: isPartial, colorProfile: color.profile)
    }

    /// Seconds for a frame shown `milliseconds` long, by ``FrameDelay/displaySeconds(_:)``.
    static func frameDuration(milliseconds: Int) -> Double {
        FrameDelay.displaySeconds(Double(milliseconds) / 1000)
    }
}
