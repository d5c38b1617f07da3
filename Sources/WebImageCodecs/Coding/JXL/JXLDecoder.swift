import CJXL
import Foundation

/// Decodes JPEG XL files with libjxl: the header first (limits checked before any pixel memory
/// exists), then a still image, the first frame, or an animation (``JXLAnimationDecoder``).
///
/// libjxl has no reduced-size decode (beyond progressive passes, which few files carry), so a
/// thumbnail is decoded at full size and then resampled; an image over
/// ``DecodeLimits/maxPixels`` is refused even when a thumbnail is asked for.
enum JXLDecoder {
    /// The events a pixel decode stops at.
    static let decodeEvents = [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FULL_IMAGE]

    /// The header facts: the size as shown and, for an animation, the frame count (from the frame
    /// headers; no pixels are decoded).
    static func info(_ bytes: UnsafeBufferPointer<UInt8>) throws -> ImageInfo {
        let session = try JXLDecodeSession(bytes, events: [JXL_DEC_BASIC_INFO])
        let info = try session.readBasicInfo()
        guard !session.size.isEmpty else {
            throw WebImageError.badData("The JPEG XL header declares an empty image.")
        }
        let frames = info.have_animation != 0 ? (try? JXLAnimationScan(bytes, maxFrames: .max))?.frameCount : 1
        return ImageInfo(format: .jpegXL, pixelSize: session.size, frameCount: frames)
    }

    /// Decodes `bytes` (the contents of `data`, which an animation keeps) per `options`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, data: Data, options: DecodeOptions) throws -> Image {
        let session = try JXLDecodeSession(bytes, events: decodeEvents)
        let info = try session.readBasicInfo()
        try options.limits.check(session.size, format: .jpegXL)
        if info.have_animation != 0, !options.firstFrameOnly {
            let scan = try JXLAnimationScan(bytes, maxFrames: options.limits.maxFrames)
            if scan.frameCount > 1 {
                return try JXLAnimationDecoder.decode(session, scan: scan, data: data, options: options)
            }
        }
        try session.readColorEncoding()
        let color = JXLColor.plan(session, options: options)
        let bitmap = try session.decodeFrame(color: color)
        // libjxl has already turned the pixels upright.
        let shown = DecodedOutput.finish([bitmap], orientation: .up, options: options)[0]
        return Image(bitmap: shown, format: .jpegXL, scale: options.scaleFactor, decodeOptions: options,
                     colorProfile: color.profile)
    }
}
