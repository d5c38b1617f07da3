import CJXL
import Foundation

/// Encodes one ``Bitmap`` as a still JPEG XL with libjxl: a bare codestream (no container),
/// tagged sRGB, alpha kept when any pixel is not opaque.
///
/// Settings chosen for servers: effort 3 ("falcon") of libjxl's 1 (fastest) to 9 (slowest), and
/// each encode on its caller's thread (a server encodes many images at once), stopping between
/// libjxl's tasks when the thread's ``WorkCancellation`` is cancelled (``JXLSerialRunner``).
/// ``effort`` has the measurements.
enum JXLEncoder {
    /// libjxl's effort for every encode. Measured with cjxl 0.7 (one thread, a loaded 2-core VM)
    /// on a 1024×768 photo-like picture: at distance 1, effort 3 took 0.13–0.17 s and effort 7
    /// (cjxl's default) 0.38 s for a file 1% smaller; lossless, effort 3 took 0.34 s and effort 7
    /// 2.8 s for 21% fewer bytes (effort 1: 0.19 s, 8% more bytes than effort 3).
    static let effort: Int64 = 3

    /// libjxl's largest distance (the lowest quality).
    static let maxDistance: Float = 25

    /// Encodes `bitmap`: lossless (every pixel round-trips exactly), or lossy at `quality`
    /// (0…100, ``distance(forQuality:)``).
    static func encode(_ bitmap: Bitmap, quality: Double, lossless: Bool) throws -> Data {
        guard let encoder = JxlEncoderCreate(nil) else {
            throw JXLFailure.encoding("allocating an encoder (out of memory)", size: bitmap.size)
        }
        defer { JxlEncoderDestroy(encoder) }
        try check(encoder, JxlEncoderSetParallelRunner(encoder, JXLSerialRunner.run, nil), "setting its runner", bitmap)
        let alpha = bitmap.hasAlpha
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(bitmap.width)
        info.ysize = UInt32(bitmap.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.num_extra_channels = alpha ? 1 : 0
        info.alpha_bits = alpha ? 8 : 0
        // Lossless must keep the RGB values as they are; lossy works in XYB.
        info.uses_original_profile = lossless ? 1 : 0
        try check(encoder, JxlEncoderSetBasicInfo(encoder, &info), "setting the basic info", bitmap)
        var srgb = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&srgb, 0)
        try check(encoder, JxlEncoderSetColorEncoding(encoder, &srgb), "setting the colour encoding", bitmap)

        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw JXLFailure.encoding("allocating the frame settings (out of memory)", size: bitmap.size)
        }
        try check(encoder, JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, effort),
                  "setting the effort", bitmap)
        if lossless {
            try check(encoder, JxlEncoderSetFrameLossless(settings, 1), "asking for lossless", bitmap)
        } else {
            try check(encoder, JxlEncoderSetFrameDistance(settings, distance(forQuality: quality)),
                      "setting the distance", bitmap)
        }
        // Opaque bitmaps are given as RGB, so libjxl sees no alpha channel to store.
        var format = JxlPixelFormat(num_channels: alpha ? 4 : 3, data_type: JXL_TYPE_UINT8,
                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
        let status = alpha
            ? bitmap.pixels.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
            : rgb(of: bitmap).withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        try check(encoder, status, "adding the pixels", bitmap)
        JxlEncoderCloseInput(encoder)
        return try output(encoder, bitmap)
    }

    /// The butteraugli distance for a quality of 0…100, on cjxl's documented `--quality` scale
    /// (which is meant to be close to libjpeg's): 100 → 0.1 (near lossless), 90 → 1 (visually
    /// lossless), falling by 0.09 a step down to quality 30 (6.4), then faster, capped at 25.
    static func distance(forQuality quality: Double) -> Float {
        let q = min(max(quality, 0), 100)
        let distance = q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25
        return min(Float(distance), maxDistance)
    }

    /// The RGB bytes of an opaque bitmap.
    private static func rgb(of bitmap: Bitmap) -> [UInt8] {
        let count = bitmap.width * bitmap.height
        return [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            bitmap.pixels.withUnsafeBufferPointer { rgba in
                for i in 0..<count {
                    out[i &* 3] = rgba[i &* 4]
                    out[i &* 3 &+ 1] = rgba[i &* 4 &+ 1]
                    out[i &* 3 &+ 2] = rgba[i &* 4 &+ 2]
                }
            }
            initialized = count * 3
        }
    }

    /// Collects the encoder's output, growing the buffer as libjxl asks.
    private static func output(_ encoder: OpaquePointer, _ bitmap: Bitmap) throws -> Data {
        var buffer = [UInt8](repeating: 0, count: max(4096, bitmap.byteCount / 8))
        var used = 0
        while true {
            let result = buffer.withUnsafeMutableBufferPointer { whole -> JxlEncoderStatus in
                var next: UnsafeMutablePointer<UInt8>? = whole.baseAddress! + used
                var available = whole.count - used
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                used = whole.count - available
                return status
            }
            if result == JXL_ENC_SUCCESS { return Data(buffer[..<used]) }
            guard result == JXL_ENC_NEED_MORE_OUTPUT else {
                throw failure(encoder, "compressing", bitmap)
            }
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
    }

    private static func check(_ encoder: OpaquePointer, _ status: JxlEncoderStatus, _ action: String,
                              _ bitmap: Bitmap) throws {
        guard status != JXL_ENC_SUCCESS else { return }
        throw failure(encoder, action, bitmap)
    }

    private static func failure(_ encoder: OpaquePointer, _ action: String, _ bitmap: Bitmap) -> WebImageError {
        if WorkCancellation.isCurrentCancelled { return WebImageError(.cancelled, "The JPEG XL encode was cancelled.") }
        let error = JxlEncoderGetError(encoder)
        let reason = error == JXL_ENC_ERR_OOM ? "; out of memory" : error == JXL_ENC_ERR_NOT_SUPPORTED ? "; not supported" : ""
        return JXLFailure.encoding(action + reason, size: bitmap.size)
    }
}
