import CResample

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
                       filter: ResamplingFilter = .default, portable: Bool = false) -> Bitmap {
        bitmap.withUnsafeBytes { bytes in
            resize(PixelRows(bytes, width: bitmap.width, height: bitmap.height), window: window, to: size,
                   opaque: opaque, filter: filter, portable: portable)
        }
    }

    /// The `window` part of `source` scaled to exactly `size`.
    ///
    /// Rows are resampled horizontally into a small ring of float rows (as many as the vertical
    /// filter spans), and each destination row is made from the ring as soon as its source rows
    /// are in it: the intermediate image is never held whole, so a resize touches no memory
    /// besides its result and a few kilobytes (fresh pages are dear, see ``BitmapMemory``). A ring
    /// that would pass ``ringBudget`` (a very wide result from very many source rows) is made
    /// smaller: a destination row is then summed a ring's worth of source rows at a time, and
    /// rows that fall out of the ring are resampled again when a later row needs them. The loops
    /// over pixels are CResample's: its fastest for the processor, or its portable C when
    /// `portable` is set.
    static func resize(_ source: PixelRows, window: Window, to size: PixelSize, opaque: Bool = false,
                       filter: ResamplingFilter = .default, portable: Bool = false) -> Bitmap {
        precondition(!size.isEmpty && window.width > 0 && window.height > 0, "empty resize")
        let alpha: Int32 = !opaque && source.hasAlpha ? 1 : 0, kernels: Int32 = portable ? 1 : 0
        let xTaps = Taps(source: source.width, start: window.x, length: window.width, count: size.width, filter: filter)
        let yTaps = Taps(source: source.height, start: window.y, length: window.height, count: size.height, filter: filter)
        let srcStride = source.bytesPerRow, dstW = size.width, dstH = size.height
        let ringRows = max(1, min((yTaps.counts.max() ?? 1) + 1, ringBudget / dstW))
        var ring = [Float](repeating: 0, count: ringRows * dstW * 4)
        var ringSource = [Int](repeating: -1, count: ringRows)
        var rowPointers = [UnsafePointer<Float>?](repeating: nil, count: ringRows)
        // Only a ring smaller than a row's taps sums in parts.
        var sumRow = [Float](repeating: 0, count: (yTaps.counts.max() ?? 1) > ringRows ? dstW * 4 : 0)
        // Every destination column reads the same number of taps (zero weights pad the short ones),
        // so the horizontal loop never branches on a column's count; the scratch row has zeros
        // past the source's last column for the padding to read.
        let xTapWidth = ((xTaps.counts.max() ?? 1) + 1) & ~1
        var scratchRow = [Float](repeating: 0, count: (source.width + xTapWidth) * 4)
        let xWeights4 = xTaps.paddedWeights(width: xTapWidth, lanes: 4)
        // Opaque rows go through the fixed-point pass where CResample has one for the processor.
        let xFixed = alpha == 0 && !portable && webimage_resample_has_fixed_horizontal() != 0
            ? xTaps.pairedFixedWeights(width: xTapWidth) : nil
        let columns = xTaps.span

        return ring.withUnsafeMutableBufferPointer { ring in
          sumRow.withUnsafeMutableBufferPointer { sum in
           scratchRow.withUnsafeMutableBufferPointer { scratch in
            rowPointers.withUnsafeMutableBufferPointer { rows in
             xWeights4.withUnsafeBufferPointer { xWeights4 in
             (xFixed ?? []).withUnsafeBufferPointer { xFixedPairs in
             xTaps.first.withUnsafeBufferPointer { xFirst in
                yTaps.withTables { yFirst, yCounts, yOffsets, yWeights in
                    /// Source row `sourceRow` resampled horizontally into its ring slot unless it
                    /// is there already; the slot's floats.
                    func ringRow(_ sourceRow: Int) -> UnsafePointer<Float> {
                        let slot = sourceRow % ringRows
                        let start = ring.baseAddress! + slot &* dstW &* 4
                        if ringSource[slot] != sourceRow {
                            ringSource[slot] = sourceRow
                            webimage_resample_horizontal(source.base + sourceRow &* srcStride, scratch.baseAddress!,
                                                         columns.lowerBound, columns.upperBound, alpha,
                                                         xFirst.baseAddress!, xTapWidth, xWeights4.baseAddress!,
                                                         xFixed == nil ? nil : xFixedPairs.baseAddress, dstW, start, kernels)
                        }
                        return UnsafePointer(start)
                    }
                    return Bitmap(width: dstW, height: dstH) { out in
                        for y in 0..<dstH {
                            // Work asked to stop ends at a block of rows (its caller drops it).
                            if y & 31 == 0, WorkCancellation.isCurrentCancelled { break }
                            let rowStart = yFirst[y], tapCount = yCounts[y], weights = yWeights.baseAddress! + yOffsets[y]
                            let outRow = out.baseAddress! + y &* dstW &* 4
                            if tapCount <= ringRows {
                                for t in 0..<tapCount { rows[t] = ringRow(rowStart &+ t) }
                                webimage_resample_vertical(rows.baseAddress!, weights, tapCount, dstW, alpha, outRow, kernels)
                                continue
                            }
                            var done = 0
                            while done < tapCount {
                                let part = min(ringRows, tapCount - done)
                                for t in 0..<part { rows[t] = ringRow(rowStart &+ done &+ t) }
                                webimage_resample_vertical_sum(rows.baseAddress!, weights + done, part, dstW &* 4,
                                                               done > 0 ? 1 : 0, sum.baseAddress!, kernels)
                                done += part
                            }
                            webimage_resample_store(sum.baseAddress!, dstW, alpha, outRow, kernels)
                        }
                    }
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

    @inline(__always)
    static func clamp8(_ v: Float) -> UInt8 {
        v <= 0 ? 0 : (v >= 255 ? 255 : UInt8(v + 0.5))
    }
}
