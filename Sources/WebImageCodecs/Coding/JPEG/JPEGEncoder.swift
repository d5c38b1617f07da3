import CTurboJPEG
import Foundation

/// Encodes the first frame of an image as a baseline JPEG: alpha flattened over the background
/// colour, quality from the options, or the best quality that fits ``EncodeOptions/maxFileSize``.
enum JPEGEncoder {
    static func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        let bitmap = try options.encodeFrames(of: image).frame(at: 0).bitmap
        let opaque = flattened(bitmap, over: options.backgroundColor)
        let compressor = try TurboJPEGCompressor()
        let quality = min(100, max(1, Int((options.compressionQuality * 100).rounded())))
        return try opaque.withUnsafeBufferPointer { pixels in
            let encode = { (quality: Int) in
                try compressor.compress(pixels, size: bitmap.size, pixelFormat: TJPF_RGBX, quality: quality,
                                        subsampling: quality >= 90 ? TJSAMP_444 : TJSAMP_420)
            }
            let first = try encode(quality)
            guard let limit = options.maxFileSize, first.count > limit else { return first }
            return try bestFitting(limit: limit, below: quality, encode: encode) ?? first
        }
    }

    /// Binary search over qualities `1..<quality` for the highest whose output fits `limit`;
    /// the quality-1 output when none fits (nil when there is nothing below `quality`).
    private static func bestFitting(limit: Int, below quality: Int, encode: (Int) throws -> Data) throws -> Data? {
        var low = 1, high = quality - 1
        var best: Data?
        var lowest: Data?
        while low <= high {
            let mid = (low + high) / 2
            let data = try encode(mid)
            if data.count <= limit {
                best = data
                low = mid + 1
            } else {
                if mid == 1 { lowest = data }
                high = mid - 1
            }
        }
        return best ?? lowest
    }

    /// The pixels with alpha composited over `background` (which is taken as opaque); the
    /// bitmap's own pixels when it is already opaque.
    static func flattened(_ bitmap: Bitmap, over background: RGBA) -> [UInt8] {
        guard bitmap.hasAlpha else { return bitmap.pixels }
        let bg = (UInt32(background.r), UInt32(background.g), UInt32(background.b))
        return bitmap.pixels.withUnsafeBufferPointer { src in
            [UInt8](unsafeUninitializedCapacity: src.count) { out, initialized in
                var i = 0
                while i < src.count {
                    let a = UInt32(src[i + 3]), inverse = 255 - a
                    out[i] = blend(UInt32(src[i]), bg.0, a, inverse)
                    out[i + 1] = blend(UInt32(src[i + 1]), bg.1, a, inverse)
                    out[i + 2] = blend(UInt32(src[i + 2]), bg.2, a, inverse)
                    out[i + 3] = 255
                    i += 4
                }
                initialized = src.count
            }
        }
    }

    @inline(__always)
    private static func blend(_ c: UInt32, _ bg: UInt32, _ a: UInt32, _ inverse: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: (c * a + bg * inverse + 127) / 255)
    }
}
