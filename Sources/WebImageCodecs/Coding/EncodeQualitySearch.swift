import Foundation

/// The search lossy encoders share to honour ``EncodeOptions/maxFileSize``.
enum EncodeQualitySearch {
    /// The best-quality encoding that fits in `maxBytes`, found by a binary search over quality
    /// 0–100 (about eight encodes); the smallest encoding when even quality 0 is too big.
    static func bestFitting(maxBytes: Int, encode: (Int) throws -> Data) rethrows -> Data {
        let best = try encode(100)
        if best.count <= maxBytes { return best }
        var smallest = best
        var fitting: Data?
        var low = 0, high = 99
        while low <= high {
            let quality = (low + high) / 2
            let data = try encode(quality)
            if data.count < smallest.count { smallest = data }
            if data.count <= maxBytes {
                fitting = data
                low = quality + 1
            } else {
                high = quality - 1
            }
        }
        return fitting ?? smallest
    }
}
