/// High-quality resizing of RGBA bitmaps.
///
/// Shrinking averages every source pixel a destination pixel covers (an area filter, exact for
/// fractional coverage); enlarging interpolates bilinearly. Colour is weighted by alpha so
/// transparent pixels never bleed dark fringes. The work is separable: rows, then columns, with
/// the filter taps precomputed once per axis in flat tables.
public enum Resampler {
    /// `bitmap` resized to exactly `size` (returned unchanged when the size is the same).
    public static func resize(_ bitmap: Bitmap, to size: PixelSize) -> Bitmap {
        resize(bitmap, to: size, opaque: false)
    }

    /// `bitmap` resized to exactly `size`; `opaque` says every alpha is 255 (a JPEG decode), which
    /// spares a scan of the source for transparency.
    static func resize(_ bitmap: Bitmap, to size: PixelSize, opaque: Bool) -> Bitmap {
        precondition(!size.isEmpty, "resize target must be at least 1x1")
        if size == bitmap.size { return bitmap }
        return resize(bitmap, window: Window(x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height)),
                      to: size, opaque: opaque)
    }

    /// All of `source` (borrowed rows, such as a decoder's own output) scaled to exactly `size`:
    /// a new bitmap even when the size is the same.
    static func resize(_ source: PixelRows, to size: PixelSize) -> Bitmap {
        resize(source, window: Window(x: 0, y: 0, width: Double(source.width), height: Double(source.height)), to: size)
    }

    /// A region of the source in pixel units; fractional edges are weighted by coverage.
    struct Window {
        var x: Double, y: Double, width: Double, height: Double
    }

    /// The `window` part of `bitmap` scaled to exactly `size` (used for aspect-fill crops).
    static func resize(_ bitmap: Bitmap, window: Window, to size: PixelSize, opaque: Bool = false) -> Bitmap {
        bitmap.withUnsafeBytes { bytes in
            resize(PixelRows(bytes, width: bitmap.width, height: bitmap.height), window: window, to: size, opaque: opaque)
        }
    }

    /// The `window` part of `source` scaled to exactly `size`.
    ///
    /// Rows are resampled horizontally into a small ring of float rows (as many as the vertical
    /// filter spans), and each destination row is made from the ring as soon as its source rows
    /// are in it: the intermediate image is never held whole, so a resize touches no memory
    /// besides its result and a few kilobytes (fresh pages are dear, see ``BitmapMemory``).
    static func resize(_ source: PixelRows, window: Window, to size: PixelSize, opaque: Bool = false) -> Bitmap {
        precondition(!size.isEmpty && window.width > 0 && window.height > 0, "empty resize")
        let alpha = !opaque && source.hasAlpha
        let xTaps = Taps(source: source.width, start: window.x, length: window.width, count: size.width)
        let yTaps = Taps(source: source.height, start: window.y, length: window.height, count: size.height)
        let srcStride = source.bytesPerRow, dstW = size.width, dstH = size.height
        let ringRows = (yTaps.counts.max() ?? 1) + 1
        var ring = [SIMD4<Float>](repeating: .zero, count: ringRows * dstW)
        var ringSource = [Int](repeating: -1, count: ringRows)
        var sumRow = [SIMD4<Float>](repeating: .zero, count: dstW)

        return ring.withUnsafeMutableBufferPointer { ring in
          sumRow.withUnsafeMutableBufferPointer { sum in
            xTaps.withTables { xFirst, xCounts, xOffsets, xWeights in
                yTaps.withTables { yFirst, yCounts, yOffsets, yWeights in
                    Bitmap(width: dstW, height: dstH) { out in
                        for y in 0..<dstH {
                            // Work asked to stop ends at a block of rows (its caller drops it).
                            if y & 31 == 0, WorkCancellation.isCurrentCancelled { break }
                            let rowStart = yFirst[y], tapCount = yCounts[y], base = yOffsets[y]
                            // Make sure the source rows this destination row needs are in the ring.
                            for t in 0..<tapCount {
                                let sourceRow = rowStart &+ t, slot = sourceRow % ringRows
                                guard ringSource[slot] != sourceRow else { continue }
                                ringSource[slot] = sourceRow
                                let row = UnsafeMutableBufferPointer(rebasing: ring[(slot &* dstW)..<(slot &* dstW &+ dstW)])
                                horizontal(source.base + sourceRow &* srcStride, into: row, alpha: alpha,
                                           first: xFirst, counts: xCounts, offsets: xOffsets, weights: xWeights)
                            }
                            // Vertical pass: the weighted ring rows summed into `sum`, then
                            // un-premultiplied and rounded into the RGBA8 result.
                            for x in 0..<dstW { sum[x] = .zero }
                            for t in 0..<tapCount {
                                let w = yWeights[base &+ t]
                                let ringRow = ring.baseAddress! + ((rowStart &+ t) % ringRows) &* dstW
                                for x in 0..<dstW { sum[x] += ringRow[x] * w }
                            }
                            let outRow = out.baseAddress! + y &* dstW &* 4
                            for x in 0..<dstW {
                                var value = sum[x]
                                if alpha {
                                    let scale: Float = value.w > 0.001 ? 255 / value.w : 0
                                    value = SIMD4(value.x * scale, value.y * scale, value.z * scale, value.w)
                                }
                                UnsafeMutableRawPointer(outRow + x &* 4).storeBytes(of: bytes(value), as: SIMD4<UInt8>.self)
                            }
                        }
                    }
                }
            }
          }
        }
    }

    /// One source row (its first byte at `src`) resampled horizontally into `into`,
    /// premultiplied by alpha when the image has alpha.
    @inline(__always)
    private static func horizontal(_ src: UnsafePointer<UInt8>, into out: UnsafeMutableBufferPointer<SIMD4<Float>>,
                                   alpha: Bool, first: UnsafeBufferPointer<Int>, counts: UnsafeBufferPointer<Int>,
                                   offsets: UnsafeBufferPointer<Int>, weights: UnsafeBufferPointer<Float>) {
        if alpha {
            for x in 0..<out.count {
                var sum = SIMD4<Float>.zero
                var i = first[x] &* 4
                let base = offsets[x]
                for t in 0..<counts[x] {
                    let w = weights[base &+ t]
                    let pixel = SIMD4<Float>(Float(src[i]), Float(src[i &+ 1]), Float(src[i &+ 2]), Float(src[i &+ 3]))
                    let f = w * pixel.w * (1 / 255)
                    sum += SIMD4(pixel.x * f, pixel.y * f, pixel.z * f, pixel.w * w)
                    i &+= 4
                }
                out[x] = sum
            }
        } else {
            for x in 0..<out.count {
                var sum = SIMD4<Float>.zero
                var i = first[x] &* 4
                let base = offsets[x]
                for t in 0..<counts[x] {
                    let pixel = SIMD4<Float>(Float(src[i]), Float(src[i &+ 1]), Float(src[i &+ 2]), Float(src[i &+ 3]))
                    sum += pixel * weights[base &+ t]
                    i &+= 4
                }
                out[x] = sum
            }
        }
    }

    @inline(__always)
    static func clamp8(_ v: Float) -> UInt8 {
        v <= 0 ? 0 : (v >= 255 ? 255 : UInt8(v + 0.5))
    }

    /// Each lane of `v` rounded half up and clamped to 0...255: the bytes `UInt8` makes of
    /// `(v + 0.5).clamped(lowerBound: 0, upperBound: 255)` (a NaN, never produced here, gives 0),
    /// in vector operations only. The SIMD `clamped` and `UInt8(_:)` go lane by lane through
    /// NaN-aware compares and checked conversions, several times the cost of the filtering.
    ///
    /// Adding 2²³ to a float in 0...255 leaves its integer part, rounded to nearest, in the low
    /// bits; one less where that rounded up gives the truncation `UInt8(_:)` makes.
    @inline(__always)
    static func bytes(_ v: SIMD4<Float>) -> SIMD4<UInt8> {
        let magic = SIMD4<Float>(repeating: 8_388_608)
        var c = v + 0.5
        c = c.replacing(with: 0, where: .!(c .>= 0))
        c = c.replacing(with: 255, where: c .> 255)
        var whole = (c + magic) - magic
        whole = whole.replacing(with: whole - 1, where: whole .> c)
        return SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(whole + magic, to: SIMD4<UInt32>.self))
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
