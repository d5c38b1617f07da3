import Foundation
import WebImage

/// How much each pixel of a (small) image draws the eye, after libvips' `attention` strategy:
/// edges (the luma Laplacian), saturated colour and skin tones, each weighted by the pixel's
/// alpha so transparent areas count for nothing. A plain area scores the same everywhere, so only
/// what stands out from it moves a crop.
struct SaliencyMap {
    let width: Int
    let height: Int
    /// Row-major scores, `width × height`, each 0 or more.
    let scores: [Float]

    /// Saturation (max − min of R, G, B) below this counts for nothing: greys and pastels.
    static let saturationFloor: Float = 40
    /// Weight of saturation above the floor, against the edge score.
    static let saturationWeight: Float = 0.5
    /// Score of a pixel that is certainly skin.
    static let skinWeight: Float = 100

    /// The map of `bitmap`, one score per pixel.
    init(_ bitmap: Bitmap) {
        let w = bitmap.width, h = bitmap.height
        width = w
        height = h
        var luma = [Float](repeating: 0, count: w * h)
        var scores = [Float](repeating: 0, count: w * h)
        bitmap.withUnsafeBytes { px in
            for i in 0..<(w * h) {
                let r = Float(px[i &* 4]), g = Float(px[i &* 4 &+ 1]), b = Float(px[i &* 4 &+ 2])
                luma[i] = 0.299 * r + 0.587 * g + 0.114 * b
                let saturation = max(r, g, b) - min(r, g, b)
                scores[i] = max(0, saturation - Self.saturationFloor) * Self.saturationWeight
                    + Self.skinLikelihood(r: r, g: g, b: b) * Self.skinWeight
            }
            for y in 0..<h {
                let up = max(y - 1, 0) * w, row = y * w, down = min(y + 1, h - 1) * w
                for x in 0..<w {
                    let left = max(x - 1, 0), right = min(x + 1, w - 1)
                    let edge = abs(4 * luma[row + x] - luma[up + x] - luma[down + x] - luma[row + left] - luma[row + right])
                    let alpha = Float(px[(row + x) &* 4 &+ 3]) / 255
                    scores[row + x] = (scores[row + x] + edge) * alpha
                }
            }
        }
        self.scores = scores
    }

    /// 0...1: how close the colour's chromaticity (r and g as shares of r + g + b) is to skin's,
    /// for colours neither very dark nor very bright.
    static func skinLikelihood(r: Float, g: Float, b: Float) -> Float {
        let sum = r + g + b
        guard sum > 120, sum < 720 else { return 0 }
        let dr = r / sum - 0.44, dg = g / sum - 0.31
        let distance2 = dr * dr + dg * dg
        // A Gaussian of 0.045 in chromaticity: pale to dark skin alike, not reds or greens.
        return distance2 > 0.02 ? 0 : exp(-distance2 / (2 * 0.045 * 0.045))
    }
}
