import WebImage

/// The average and dominant colours of a (small) bitmap, counting each pixel by its alpha so
/// transparent areas do not pull the colours toward whatever their RGB holds.
enum ImageColors {
    /// The alpha-weighted mean colour, opaque; nil for a wholly transparent bitmap.
    static func average(_ bitmap: Bitmap) -> RGBA? {
        var r = 0, g = 0, b = 0, weight = 0
        bitmap.withUnsafeBytes { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                let a = Int(p[i + 3])
                r += Int(p[i]) * a; g += Int(p[i + 1]) * a; b += Int(p[i + 2]) * a
                weight += a
            }
        }
        guard weight > 0 else { return nil }
        return RGBA(r: UInt8((r + weight / 2) / weight), g: UInt8((g + weight / 2) / weight),
                    b: UInt8((b + weight / 2) / weight))
    }

    /// The mean colour of the most common colour bin (4 bits a channel), alpha-weighted, opaque;
    /// nil for a wholly transparent bitmap. Ties go to the lower bin, so the answer is stable.
    static func dominant(_ bitmap: Bitmap) -> RGBA? {
        var weights = [Int](repeating: 0, count: 4096)
        var sums = [Int](repeating: 0, count: 4096 * 3)
        bitmap.withUnsafeBytes { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                let a = Int(p[i + 3])
                guard a > 0 else { continue }
                let bin = Int(p[i] >> 4) << 8 | Int(p[i + 1] >> 4) << 4 | Int(p[i + 2] >> 4)
                weights[bin] += a
                sums[bin * 3] += Int(p[i]) * a
                sums[bin * 3 + 1] += Int(p[i + 1]) * a
                sums[bin * 3 + 2] += Int(p[i + 2]) * a
            }
        }
        var best = 0
        for bin in 1..<4096 where weights[bin] > weights[best] { best = bin }
        let weight = weights[best]
        guard weight > 0 else { return nil }
        func channel(_ k: Int) -> UInt8 { UInt8((sums[best * 3 + k] + weight / 2) / weight) }
        return RGBA(r: channel(0), g: channel(1), b: channel(2))
    }

    /// `#rrggbb`.
    static func hex(_ color: RGBA) -> String {
        let value = Int(color.r) << 16 | Int(color.g) << 8 | Int(color.b)
        let digits = String(value, radix: 16)
        return "#" + String(repeating: "0", count: 6 - digits.count) + digits
    }
}
