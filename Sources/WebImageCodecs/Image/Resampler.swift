/// High-quality resizing of RGBA bitmaps.
///
/// Shrinking averages every source pixel a destination pixel covers (an area filter, exact for
/// fractional coverage); enlarging interpolates bilinearly. Colour is weighted by alpha so
/// transparent pixels never bleed dark fringes. The work is separable: rows, then columns, with
/// the filter taps precomputed once per axis in flat tables.
public enum Resampler {
    /// `bitmap` resized to exactly `size` (returned unchanged when the size is the same).
    public static func resize(_ bitmap: Bitmap, to size: PixelSize) -> Bitmap {
        precondition(!size.isEmpty, "resize target must be at least 1x1")
        if size == bitmap.size { return bitmap }
        return resize(bitmap, window: Window(x: 0, y: 0, width: Double(bitmap.width),
                                             height: Double(bitmap.height)), to: size)
    }

    /// A region of the source in pixel units; fractional edges are weighted by coverage.
    struct Window {
        var x: Double, y: Double, width: Double, height: Double
    }

    /// The `window` part of `bitmap` scaled to exactly `size` (used for aspect-fill crops).
    static func resize(_ bitmap: Bitmap, window: Window, to size: PixelSize) -> Bitmap {
        precondition(!size.isEmpty && window.width > 0 && window.height > 0, "empty resize")
        let alpha = bitmap.hasAlpha
        let xTaps = Taps(source: bitmap.width, start: window.x, length: window.width, count: size.width)
        let yTaps = Taps(source: bitmap.height, start: window.y, length: window.height, count: size.height)
        let srcW = bitmap.width, srcH = bitmap.height, dstW = size.width, dstH = size.height

        // Pass 1: horizontal, into a float buffer of dstW x srcH (premultiplied when alpha).
        var mid = [Float](repeating: 0, count: dstW * srcH * 4)
        bitmap.pixels.withUnsafeBufferPointer { src in
            mid.withUnsafeMutableBufferPointer { m in
                xTaps.withTables { first, counts, offsets, weights in
                    for y in 0..<srcH {
                        let srow = y &* srcW &* 4, mrow = y &* dstW &* 4
                        for x in 0..<dstW {
                            var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                            var i = srow &+ first[x] &* 4
                            let base = offsets[x]
                            for t in 0..<counts[x] {
                                let w = weights[base &+ t]
                                let pa = Float(src[i &+ 3])
                                let f = alpha ? w * pa * (1 / 255) : w
                                r += Float(src[i]) * f; g += Float(src[i &+ 1]) * f
                                b += Float(src[i &+ 2]) * f; a += pa * w
                                i &+= 4
                            }
                            let o = mrow &+ x &* 4
                            m[o] = r; m[o &+ 1] = g; m[o &+ 2] = b; m[o &+ 3] = a
                        }
                    }
                }
            }
        }
        // Pass 2: vertical, into the RGBA8 result (un-premultiplied).
        return mid.withUnsafeBufferPointer { m in
            yTaps.withTables { first, counts, offsets, weights in
                Bitmap(width: dstW, height: dstH) { out in
                    for y in 0..<dstH {
                        let rowStart = first[y], tapCount = counts[y], base = offsets[y]
                        for x in 0..<dstW {
                            var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                            var i = (rowStart &* dstW &+ x) &* 4
                            for t in 0..<tapCount {
                                let w = weights[base &+ t]
                                r += m[i] * w; g += m[i &+ 1] * w; b += m[i &+ 2] * w; a += m[i &+ 3] * w
                                i &+= dstW &* 4
                            }
                            if alpha {
                                let scale: Float = a > 0.001 ? 255 / a : 0
                                r *= scale; g *= scale; b *= scale
                            }
                            let o = (y &* dstW &+ x) &* 4
                            out[o] = clamp8(r); out[o &+ 1] = clamp8(g)
                            out[o &+ 2] = clamp8(b); out[o &+ 3] = clamp8(a)
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    static func clamp8(_ v: Float) -> UInt8 {
        v <= 0 ? 0 : (v >= 255 ? 255 : UInt8(v + 0.5))
    }

    /// For each destination index along one axis: a run of consecutive source indices starting
    /// at `first`, `count` long, whose weights (summing to 1) start at `offsets` in `weights`.
    struct Taps {
        var first: [Int] = []
        var counts: [Int] = []
        var offsets: [Int] = []
        var weights: [Float] = []

        /// Taps mapping the source span `[start, start + length)` of a `source`-long axis onto
        /// `count` destination pixels: area coverage when shrinking, bilinear when enlarging.
        init(source: Int, start: Double, length: Double, count: Int) {
            first.reserveCapacity(count); counts.reserveCapacity(count); offsets.reserveCapacity(count)
            let scale = length / Double(count)
            for i in 0..<count {
                offsets.append(weights.count)
                if scale > 1 { // area: destination pixel i covers [lo, hi)
                    let lo = max(start + Double(i) * scale, 0)
                    let hi = min(start + Double(i + 1) * scale, Double(source))
                    var s = min(max(Int(lo.rounded(.down)), 0), source - 1)
                    let runStart = s
                    var total = 0.0
                    let base = weights.count
                    while Double(s) < hi && s < source {
                        let cover = max(min(hi, Double(s + 1)) - max(lo, Double(s)), 0)
                        weights.append(Float(cover)); total += cover
                        s += 1
                    }
                    if weights.count == base || total <= 1e-12 {
                        weights.removeSubrange(base...); weights.append(1); total = 1
                    }
                    first.append(runStart); counts.append(weights.count - base)
                    let norm = Float(1 / total)
                    for k in base..<weights.count { weights[k] *= norm }
                } else { // bilinear, pixel centres aligned
                    let centre = start + (Double(i) + 0.5) * scale - 0.5
                    let left = Int(centre.rounded(.down))
                    let frac = Float(centre - Double(left))
                    let a = min(max(left, 0), source - 1), b = min(max(left + 1, 0), source - 1)
                    if a == b || frac == 0 {
                        first.append(a); counts.append(1); weights.append(1)
                    } else {
                        first.append(a); counts.append(2); weights.append(1 - frac); weights.append(frac)
                    }
                }
            }
        }

        func withTables<R>(_ body: (UnsafeBufferPointer<Int>, UnsafeBufferPointer<Int>,
                                    UnsafeBufferPointer<Int>, UnsafeBufferPointer<Float>) -> R) -> R {
            first.withUnsafeBufferPointer { f in
                counts.withUnsafeBufferPointer { c in
                    offsets.withUnsafeBufferPointer { o in
                        weights.withUnsafeBufferPointer { w in body(f, c, o, w) }
                    }
                }
            }
        }
    }
}
