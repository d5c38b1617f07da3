/// High-quality resizing of RGBA bitmaps.
///
/// Each axis is resampled with a ``ResamplingFilter`` (lanczos3 unless asked otherwise): rows,
/// then columns, with the filter taps precomputed once per axis in flat tables. Colour is weighted
/// by alpha (premultiplied while filtering) so transparent pixels never bleed into their
/// neighbours.
public enum Resampler {
    /// `bitmap` resized to exactly `size` with `filter` (returned unchanged when the size is the same).
    public static func resize(_ bitmap: Bitmap, to size: PixelSize, filter: ResamplingFilter = .default) -> Bitmap {
        resize(bitmap, to: size, opaque: false, filter: filter)
    }

    /// `bitmap` resized to exactly `size`; `opaque` says every alpha is 255 (a JPEG decode), which
    /// spares a scan of the source for transparency.
    static func resize(_ bitmap: Bitmap, to size: PixelSize, opaque: Bool, filter: ResamplingFilter = .default) -> Bitmap {
        precondition(!size.isEmpty, "resize target must be at least 1x1")
        if size == bitmap.size { return bitmap }
        return resize(bitmap, window: Window(x: 0, y: 0, width: Double(bitmap.width), height: Double(bitmap.height)),
                      to: size, opaque: opaque, filter: filter)
    }

    /// All of `source` (borrowed rows, such as a decoder's own output) scaled to exactly `size`:
    /// a new bitmap even when the size is the same.
    static func resize(_ source: PixelRows, to size: PixelSize, filter: ResamplingFilter = .default) -> Bitmap {
        resize(source, window: Window(x: 0, y: 0, width: Double(source.width), height: Double(source.height)),
               to: size, filter: filter)
    }

    /// A region of the source in pixel units; fractional edges are weighted by coverage.
    struct Window {
        var x: Double, y: Double, width: Double, height: Double
    }

    /// The `window` part of `bitmap` scaled to exactly `size` (used for aspect-fill crops).
    static func resize(_ bitmap: Bitmap, window: Window, to size: PixelSize, opaque: Bool = false,
                       filter: ResamplingFilter = .default) -> Bitmap {
        bitmap.withUnsafeBytes { bytes in
            resize(PixelRows(bytes, width: bitmap.width, height: bitmap.height), window: window, to: size,
                   opaque: opaque, filter: filter)
        }
    }

    /// The `window` part of `source` scaled to exactly `size`.
    ///
    /// Rows are resampled horizontally into a small ring of float rows (as many as the vertical
    /// filter spans), and each destination row is made from the ring as soon as its source rows
    /// are in it: the intermediate image is never held whole, so a resize touches no memory
    /// besides its result and a few kilobytes (fresh pages are dear, see ``BitmapMemory``). A ring
    /// that would pass ``ringBudget`` (a very wide result from very many source rows) is made
    /// smaller: rows that fall out of it are resampled again when a later row needs them.
    static func resize(_ source: PixelRows, window: Window, to size: PixelSize, opaque: Bool = false,
                       filter: ResamplingFilter = .default) -> Bitmap {
        precondition(!size.isEmpty && window.width > 0 && window.height > 0, "empty resize")
        let alpha = !opaque && source.hasAlpha
        let xTaps = Taps(source: source.width, start: window.x, length: window.width, count: size.width, filter: filter)
        let yTaps = Taps(source: source.height, start: window.y, length: window.height, count: size.height, filter: filter)
        let srcStride = source.bytesPerRow, dstW = size.width, dstH = size.height
        let ringRows = max(1, min((yTaps.counts.max() ?? 1) + 1, ringBudget / dstW))
        var ring = [SIMD4<Float>](repeating: .zero, count: ringRows * dstW)
        var ringSource = [Int](repeating: -1, count: ringRows)
        var sumRow = [SIMD4<Float>](repeating: .zero, count: dstW)
        var scratchRow = [SIMD4<Float>](repeating: .zero, count: source.width)
        let columns = xTaps.span

        return ring.withUnsafeMutableBufferPointer { ring in
          sumRow.withUnsafeMutableBufferPointer { sum in
           scratchRow.withUnsafeMutableBufferPointer { scratch in
            xTaps.withTables { xFirst, xCounts, xOffsets, xWeights in
                yTaps.withTables { yFirst, yCounts, yOffsets, yWeights in
                    Bitmap(width: dstW, height: dstH) { out in
                        for y in 0..<dstH {
                            // Work asked to stop ends at a block of rows (its caller drops it).
                            if y & 31 == 0, WorkCancellation.isCurrentCancelled { break }
                            let rowStart = yFirst[y], tapCount = yCounts[y], base = yOffsets[y]
                            // Vertical pass: each source row this destination row needs, resampled
                            // horizontally into the ring unless it is there already, weighted into
                            // `sum`; then un-premultiplied and rounded into the RGBA8 result.
                            for x in 0..<dstW { sum[x] = .zero }
                            for t in 0..<tapCount {
                                let sourceRow = rowStart &+ t, slot = sourceRow % ringRows
                                let ringRow = ring.baseAddress! + slot &* dstW
                                if ringSource[slot] != sourceRow {
                                    ringSource[slot] = sourceRow
                                    horizontal(source.base + sourceRow &* srcStride, scratch: scratch.baseAddress!,
                                               columns: columns,
                                               into: UnsafeMutableBufferPointer(start: ringRow, count: dstW), alpha: alpha,
                                               first: xFirst, counts: xCounts, offsets: xOffsets, weights: xWeights)
                                }
                                let w = yWeights[base &+ t]
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
    }

    /// The most float pixels the ring of horizontally resampled rows holds (4 MiB).
    static let ringBudget = 1 << 18

    /// One source row (its first byte at `src`) resampled horizontally into `into`. The pixels
    /// the taps read (`columns`) are made floats once each in `scratch` (indexed by column),
    /// premultiplied by alpha when the image has alpha, so each tap is one multiply-add of vectors.
    @inline(__always)
    private static func horizontal(_ src: UnsafePointer<UInt8>, scratch: UnsafeMutablePointer<SIMD4<Float>>,
                                   columns: Range<Int>, into out: UnsafeMutableBufferPointer<SIMD4<Float>>,
                                   alpha: Bool, first: UnsafeBufferPointer<Int>, counts: UnsafeBufferPointer<Int>,
                                   offsets: UnsafeBufferPointer<Int>, weights: UnsafeBufferPointer<Float>) {
        if alpha {
            for c in columns {
                let i = c &* 4
                let a = Float(src[i &+ 3]), f = a * (1 / 255)
                scratch[c] = SIMD4(Float(src[i]) * f, Float(src[i &+ 1]) * f, Float(src[i &+ 2]) * f, a)
            }
        } else {
            for c in columns {
                let i = c &* 4
                scratch[c] = SIMD4(Float(src[i]), Float(src[i &+ 1]), Float(src[i &+ 2]), Float(src[i &+ 3]))
            }
        }
        for x in 0..<out.count {
            var sum = SIMD4<Float>.zero
            let pixels = scratch + first[x], w = weights.baseAddress! + offsets[x]
            for t in 0..<counts[x] { sum += pixels[t] * w[t] }
            out[x] = sum
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
}
