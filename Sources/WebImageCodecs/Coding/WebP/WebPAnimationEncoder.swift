import CWebP
import Foundation

/// Encodes several frames as an animated WebP.
///
/// Each frame is encoded whole and muxed as an animation frame that replaces the canvas
/// (no blending, no disposal). Unlike libwebp's WebPAnimEncoder this keeps every frame and its
/// exact duration (identical or zero-length frames are not merged away), so a decode gives back
/// the same frame list.
enum WebPAnimationEncoder {
    /// The longest frame duration the format stores (24 bits of milliseconds).
    static let maxDurationMilliseconds = 0xFF_FFFF

    /// Encodes and muxes one frame at a time: only compressed frames are kept.
    static func encode(_ frames: EncodeFrames, quality: Float, lossless: Bool) throws -> Data {
        guard let mux = WebPMuxNew() else {
            throw WebImageError(.encodingFailed, "libwebp could not create a muxer (out of memory).")
        }
        defer { WebPMuxDelete(mux) }
        for index in 0..<frames.count {
            let frame = try frames.frame(at: index)
            let still = try WebPEncoder.encode(frame.bitmap, quality: quality, lossless: lossless)
            let milliseconds = (frame.duration * 1000).rounded()
            let result = still.withUnsafeBytes { raw -> WebPMuxError in
                var info = WebPMuxFrameInfo()
                info.bitstream = WebPData(bytes: raw.bindMemory(to: UInt8.self).baseAddress, size: raw.count)
                info.duration = Int32(milliseconds.isFinite ? min(max(milliseconds, 0), Double(maxDurationMilliseconds)) : 0)
                info.id = WEBP_CHUNK_ANMF
                info.dispose_method = WEBP_MUX_DISPOSE_NONE
                info.blend_method = WEBP_MUX_NO_BLEND
                return WebPMuxPushFrame(mux, &info, 1)
            }
            guard result == WEBP_MUX_OK else {
                throw WebImageError(.encodingFailed, "libwebp could not add frame \(index + 1) to the animation (mux error \(result.rawValue)).")
            }
        }
        var params = WebPMuxAnimParams(bgcolor: 0, loop_count: Int32(clamping: min(max(frames.loopCount, 0), 0xFFFF)))
        guard WebPMuxSetAnimationParams(mux, &params) == WEBP_MUX_OK else {
            throw WebImageError(.encodingFailed, "libwebp could not set the animation's loop count.")
        }
        var output = WebPData()
        let assembled = WebPMuxAssemble(mux, &output)
        defer { WebPDataClear(&output) }
        guard assembled == WEBP_MUX_OK, let bytes = output.bytes, output.size > 0 else {
            throw WebImageError(.encodingFailed, "libwebp could not assemble the animation (mux error \(assembled.rawValue)).")
        }
        return Data(bytes: bytes, count: output.size)
    }
}
