import WebImage

/// Porter–Duff "over" of a watermark onto an image, both straight-alpha RGBA: the watermark's
/// alpha is scaled by the opacity, the image's alpha kept in the sum, so an opaque image stays
/// opaque and a transparent one takes the watermark's own colour and coverage. Integer arithmetic,
/// rounded to nearest.
enum WatermarkBlend {
    /// `image` with `mark` drawn over it at each pair of `xs` and `ys` (its top-left corners, which
    /// may lie outside the image: what falls outside is cut off), at `opacity` (clamped to 0–1; NaN draws nothing).
    static func draw(_ mark: Bitmap, over image: Bitmap, xs: [Int], ys: [Int], opacity: Double) -> Bitmap {
        let level = opacity.isNaN ? 0 : Int((min(max(opacity, 0), 1) * 255).rounded())
        guard level > 0, !xs.isEmpty, !ys.isEmpty else { return image }
        let width = image.width, height = image.height
        return Bitmap(width: width, height: height) { out in
            image.withUnsafeBytes { pixels in
                UnsafeMutableRawPointer(out.baseAddress!).copyMemory(from: pixels.baseAddress!, byteCount: pixels.count)
            }
            mark.withUnsafeBytes { source in
                for top in ys {
                    let y0 = max(top, 0), y1 = min(top + mark.height, height)
                    guard y1 > y0 else { continue }
                    for left in xs {
                        let x0 = max(left, 0), x1 = min(left + mark.width, width)
                        guard x1 > x0 else { continue }
                        for y in y0..<y1 {
                            let from = ((y - top) * mark.width + (x0 - left)) * 4
                            let to = (y * width + x0) * 4
                            blendRow(source.baseAddress! + from, into: out.baseAddress! + to,
                                     pixelCount: x1 - x0, level: level)
                        }
                    }
                }
            }
        }
    }

    /// 255 × 255: alphas times the opacity level are in these units.
    private static let unit = 65_025

    /// `count` pixels of `mark` over `out`, in place, the mark's alpha scaled by `level` / 255.
    private static func blendRow(_ mark: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                                 pixelCount count: Int, level: Int) {
        let unit = Self.unit
        for pixel in 0..<count {
            let index = pixel * 4
            let markAlpha = Int(mark[index + 3]) * level
            if markAlpha == 0 { continue }
            let baseAlpha = Int(out[index + 3])
            if baseAlpha == 255 {
                // An opaque pixel stays opaque: a plain mix by the mark's coverage.
                let rest = unit - markAlpha
                for channel in 0..<3 {
                    out[index + channel] = UInt8((Int(mark[index + channel]) * markAlpha
                        + Int(out[index + channel]) * rest + unit / 2) / unit)
                }
                continue
            }
            // In units²: the mark's coverage, plus the image's where the mark leaves it showing.
            let below = baseAlpha * 255 * (unit - markAlpha)
            let total = markAlpha * unit + below
            for channel in 0..<3 {
                out[index + channel] = UInt8((Int(mark[index + channel]) * markAlpha * unit
                    + Int(out[index + channel]) * below + total / 2) / total)
            }
            out[index + 3] = UInt8((total + unit * 255 / 2) / (unit * 255))
        }
    }
}
