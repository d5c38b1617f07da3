import CTurboJPEG
import Foundation

/// Encodes the first frame of an image as a baseline JPEG: alpha flattened over the background
/// colour, quality from the options, or the best quality that fits ``EncodeOptions/maxFileSize``.
enum JPEGEncoder {
    static func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        let bitmap = try options.encodeFrames(of: image).frame(at: 0).bitmap
        let opaque = bitmap.flattened(over: options.backgroundColor)
        let compressor = try TurboJPEGCompressor()
        let quality = min(100, max(1, Int((options.compressionQuality * 100).rounded())))
        return try opaque.withUnsafeBytes { pixels in
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
}
