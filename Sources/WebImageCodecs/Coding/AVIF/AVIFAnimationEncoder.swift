import CAVIF
import Foundation

/// Encodes several frames as an AVIF image sequence (`avis`) with libavif, one frame at a time:
/// each frame is converted and handed to the AV1 encoder before the next is asked for, so only
/// compressed frames are kept.
///
/// The settings are the still encoder's (``AVIFEncoder/speed``, one thread, one quantizer). At
/// libavif's speeds 7 and above libaom encodes a sequence in its real-time mode, which looks at no
/// frames ahead: each frame's work is done when it is added, and the thread's
/// ``WorkCancellation`` is looked at between frames. Durations are written in milliseconds. libavif
/// 0.11 writes no edit list, so a sequence loops forever whatever the source's loop count.
enum AVIFAnimationEncoder {
    /// The sequence's timescale: durations are whole milliseconds.
    static let timescale: UInt64 = 1000

    /// Encodes every frame of `frames` at `quality` (0…1), or losslessly.
    ///
    /// libavif decides from the first frame whether the sequence has an alpha track, and every
    /// frame must then match: frames known to be opaque (all held in memory, none with alpha) are
    /// written without one, any other animation with one.
    static func encode(_ frames: EncodeFrames, quality: Double, lossless: Bool) throws -> Data {
        let encoder = try AVIFEncoder.makeEncoder(quality: quality, lossless: lossless)
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.timescale = timescale
        let alpha = !frames.heldFramesAreOpaque
        for index in 0..<frames.count {
            try WorkCancellation.checkCurrent()
            let frame = try frames.frame(at: index)
            let image = try AVIFEncoder.makeImage(frame.bitmap, lossless: lossless, alpha: alpha)
            defer { avifImageDestroy(image) }
            let result = avifEncoderAddImage(encoder, image, duration(frame.duration),
                                             avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_NONE.rawValue))
            guard result == AVIF_RESULT_OK else {
                throw AVIFEncoder.failure(encoder, result, "encode frame \(index + 1) of \(frames.count) (\(frame.bitmap.size))")
            }
        }
        try WorkCancellation.checkCurrent()
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let result = avifEncoderFinish(encoder, &output)
        guard result == AVIF_RESULT_OK, let bytes = output.data, output.size > 0 else {
            throw AVIFEncoder.failure(encoder, result, "finish the \(frames.count)-frame sequence")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// A frame's duration in ``timescale`` units: the time it is shown (``FrameDelay``, so a
    /// zero, negative or non-finite delay is written as 0.1 s), rounded, within the sample
    /// table's 32 bits and at least one unit.
    static func duration(_ seconds: Double) -> UInt64 {
        let shown = FrameDelay.displaySeconds(seconds.isFinite ? seconds : 0)
        let units = (shown * Double(timescale)).rounded()
        return UInt64(min(max(units, 1), Double(UInt32.max)))
    }
}
