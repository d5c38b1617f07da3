import Foundation

/// The search for the best quality whose encoding fits a size, shared by the lossy encoders
/// (``EncodeOptions/maxFileSize``) and by callers that encode themselves.
public enum EncodeQualitySearch {
    /// The best-quality encoding that fits in `maxBytes`, found by a binary search over quality
    /// 0–100 (about eight encodes); the smallest encoding when even quality 0 is too big.
    static func bestFitting(maxBytes: Int, encode: (Int) throws -> Data) rethrows -> Data {
        try highestFitting(maxBytes: maxBytes, qualities: 0...100, encode: encode).data
    }

    /// The encoding at the highest quality in `qualities` that fits in `maxBytes`, with that
    /// quality: the top quality is tried first, then a binary search over the rest (at most
    /// 1 + ⌈log₂(count)⌉ encodes, 8 for a range of 100). When none fits, the smallest encoding
    /// made, which the search makes at the lowest quality of the range.
    public static func highestFitting(maxBytes: Int, qualities: ClosedRange<Int>,
                                      encode: (Int) throws -> Data) rethrows -> (data: Data, quality: Int) {
        let top = try encode(qualities.upperBound)
        if top.count <= maxBytes { return (top, qualities.upperBound) }
        var smallest = (data: top, quality: qualities.upperBound)
        var fitting: (data: Data, quality: Int)?
        var low = qualities.lowerBound, high = qualities.upperBound - 1
        while low <= high {
            let quality = low + (high - low) / 2
            let data = try encode(quality)
            if data.count < smallest.data.count { smallest = (data, quality) }
            if data.count <= maxBytes {
                fitting = (data, quality)
                low = quality + 1
            } else {
                high = quality - 1
            }
        }
        return fitting ?? smallest
    }
}
