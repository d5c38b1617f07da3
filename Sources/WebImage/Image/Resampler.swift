/// High-quality resizing of RGBA bitmaps.
///
/// Shrinking averages every source pixel a destination pixel covers (an area filter, exact for
/// fractional coverage); enlarging interpolates bilinearly. Colour is weighted by alpha so
/// transparent pixels never bleed dark fringes. The work is separable: rows, then columns.
public enum Resampler {
    /// `bitmap` resized to exactly `size` (returned unchanged when the size is the same).
    public static func resize(_ bitmap: Bitmap, to size: PixelSize) -> Bitmap {
        precondition(!size.isEmpty, "resize target must be at least 1x1")
        if size == bitmap.size { return bitmap }
        let alpha = bitmap.hasAlpha
        let xWeights = weights(from: bitmap.width, to: size.width)
        let yWeights = weights(from: bitmap.height, to: size.height)
        let srcW = bitmap.width, srcH = bitmap.height, dstW = size.width, dstH = size.height

        // Pass 1: horizontal, into a float buffer of dstW x srcH (premultiplied when alpha).
        var mid = [Float](repeating: 0, count: dstW * srcH * 4)
        bitmap.pixels.withUnsafeBufferPointer { src in
            mid.withUnsafeMutableBufferPointer { m in
                for y in 0..<srcH {
                    let srow = y * srcW * 4, mrow = y * dstW * 4
                    for x in 0..<dstW {
                        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                        for (sx, w) in xWeights[x] {
                            let i = srow + sx * 4
                            let pa = Float(src[i + 3])
                            let f = alpha ? w * pa / 255 : w
                            r += Float(src[i]) * f; g += Float(src[i + 1]) * f
                            b += Float(src[i + 2]) * f; a += pa * w
                        }
                        let o = mrow + x * 4
                        m[o] = r; m[o + 1] = g; m[o + 2] = b; m[o + 3] = a
                    }
                }
            }
        }
        // Pass 2: vertical, into the RGBA8 result (un-premultiplied).
        return mid.withUnsafeBufferPointer { m in
            Bitmap(width: dstW, height: dstH) { out in
                for y in 0..<dstH {
                    let taps = yWeights[y]
                    for x in 0..<dstW {
                        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                        for (sy, w) in taps {
                            let i = (sy * dstW + x) * 4
                            r += m[i] * w; g += m[i + 1] * w; b += m[i + 2] * w; a += m[i + 3] * w
                        }
                        if alpha {
                            let scale: Float = a > 0.001 ? 255 / a : 0
                            r *= scale; g *= scale; b *= scale
                        }
                        let o = (y * dstW + x) * 4
                        out[o] = clamp8(r); out[o + 1] = clamp8(g); out[o + 2] = clamp8(b); out[o + 3] = clamp8(a)
                    }
                }
            }
        }
    }

    @inline(__always)
    static func clamp8(_ v: Float) -> UInt8 {
        v <= 0 ? 0 : (v >= 255 ? 255 : UInt8(v + 0.5))
    }

    /// For each destination index, the source indices and weights (summing to 1) that make it.
    static func weights(from src: Int, to dst: Int) -> [[(Int, Float)]] {
        let scale = Double(src) / Double(dst)
        var table: [[(Int, Float)]] = []
        table.reserveCapacity(dst)
        if dst < src { // area: destination pixel i covers [i*scale, (i+1)*scale)
            for i in 0..<dst {
                let start = Double(i) * scale, end = min(Double(i + 1) * scale, Double(src))
                var taps: [(Int, Float)] = []
                var s = Int(start)
                while Double(s) < end && s < src {
                    let cover = min(end, Double(s + 1)) - max(start, Double(s))
                    if cover > 1e-9 { taps.append((s, Float(cover / scale))) }
                    s += 1
                }
                table.append(taps)
            }
        } else { // bilinear, pixel centres aligned
            for i in 0..<dst {
                let centre = (Double(i) + 0.5) * scale - 0.5
                let left = Int(centre.rounded(.down))
                let frac = Float(centre - Double(left))
                let a = min(max(left, 0), src - 1), b = min(max(left + 1, 0), src - 1)
                table.append(a == b ? [(a, Float(1))] : [(a, 1 - frac), (b, frac)])
            }
        }
        return table
    }
}
