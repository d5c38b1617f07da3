import CSPNG
import Glibc

/// Encodes one ``Bitmap`` as a PNG with libspng: truecolour (RGB8) when every pixel is opaque,
/// truecolour with alpha (RGBA8) otherwise.
enum PNGEncoder {
    /// The PNG bytes of `bitmap`; `withAlpha` forces the colour type (nil = decide from pixels).
    static func encode(_ bitmap: Bitmap, withAlpha: Bool? = nil) throws -> [UInt8] {
        let alpha = withAlpha ?? bitmap.hasAlpha
        let ctx = try SPNGContext(encoding: ())
        var ihdr = spng_ihdr(width: UInt32(bitmap.width), height: UInt32(bitmap.height), bit_depth: 8,
                             color_type: UInt8(alpha ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue
                                                     : SPNG_COLOR_TYPE_TRUECOLOR.rawValue),
                             compression_method: 0, filter_method: 0, interlace_method: 0)
        try ctx.check(spng_set_ihdr(ctx.raw, &ihdr), "writing the PNG header", code: .encodingFailed)
        let samples = alpha ? bitmap.pixels : stripAlpha(bitmap)
        // Row by row, so work asked to stop (``WorkCancellation``) ends between blocks of rows.
        let flags = Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue)
        try ctx.check(spng_encode_image(ctx.raw, nil, 0, Int32(SPNG_FMT_PNG.rawValue), flags),
                      "starting the PNG encode", code: .encodingFailed)
        let rowBytes = bitmap.width * (alpha ? 4 : 3)
        try samples.withUnsafeBytes { raw in
            for y in 0..<bitmap.height {
                if y & 63 == 0, WorkCancellation.isCurrentCancelled {
                    throw WebImageError(.cancelled, "The PNG encode was cancelled.")
                }
                let rc = spng_encode_row(ctx.raw, raw.baseAddress! + y * rowBytes, rowBytes)
                if rc == Int32(SPNG_EOI.rawValue) { break }
                try ctx.check(rc, "compressing row \(y)", code: .encodingFailed)
            }
        }
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng_get_png_buffer(ctx.raw, &length, &error) else {
            try ctx.check(error == 0 ? -1 : error, "collecting the encoded PNG", code: .encodingFailed)
            throw WebImageError(.encodingFailed, "The PNG encoder produced no data.")
        }
        defer { free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length).bindMemory(to: UInt8.self))
    }

    /// The RGB bytes of `bitmap`, alpha dropped.
    private static func stripAlpha(_ bitmap: Bitmap) -> [UInt8] {
        let count = bitmap.width * bitmap.height
        return bitmap.pixels.withUnsafeBufferPointer { src in
            [UInt8](unsafeUninitializedCapacity: count * 3) { dst, initialized in
                for i in 0..<count {
                    dst[i * 3] = src[i * 4]; dst[i * 3 + 1] = src[i * 4 + 1]; dst[i * 3 + 2] = src[i * 4 + 2]
                }
                initialized = count * 3
            }
        }
    }
}
