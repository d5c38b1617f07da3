import Foundation

/// The structural similarity index (SSIM, Wang, Bovik, Sheikh and Simoncelli 2004) of two images
/// of one size, on their luma: 1 for identical images, lower the more their local means,
/// contrasts and structure differ.
///
/// This is the paper's reference form: 8-bit luma (``LumaPlane``), an 11×11 Gaussian window with
/// σ = 1.5 (normalised to sum 1), K1 = 0.01, K2 = 0.03 and L = 255, and the mean of the SSIM map
/// over every window that lies wholly inside the image (no padding). An image narrower or lower
/// than 11 pixels gets a window as large as its shorter side (the same Gaussian, truncated and
/// normalised again). The filtering is separable and runs a row at a time, so besides the two
/// planes it holds 5 × 11 filtered rows, never an image-sized buffer.
public enum StructuralSimilarity {
    /// The side of the Gaussian window, in pixels.
    public static let windowSide = 11
    /// The Gaussian window's standard deviation, in pixels.
    public static let sigma = 1.5

    /// The SSIM of two bitmaps' luma, each composited over `background` first (its alpha is
    /// ignored; transparent pixels show it); nil when their sizes differ.
    public static func index(_ a: Bitmap, _ b: Bitmap, over background: RGBA = .white) -> Double? {
        guard a.size == b.size else { return nil }
        return index(LumaPlane(a, over: background), LumaPlane(b, over: background))
    }

    /// The SSIM of two luma planes; nil when their sizes differ.
    public static func index(_ a: LumaPlane, _ b: LumaPlane) -> Double? {
        guard a.width == b.width, a.height == b.height else { return nil }
        let side = min(windowSide, a.width, a.height)
        let weights = gaussian(side: side)
        let outWidth = a.width - side + 1, outHeight = a.height - side + 1
        let c1 = Float((0.01 * 255.0) * (0.01 * 255.0)), c2 = Float((0.03 * 255.0) * (0.03 * 255.0))
        let width = a.width
        // The five maps (x, y, x², y², xy) of the current row; horizontally filtered, of the last
        // `side` rows, in a ring; and of one row of windows, filtered vertically too.
        var rows = [Float](repeating: 0, count: 5 * width)
        var ring = [Float](repeating: 0, count: 5 * side * outWidth)
        var means = [Float](repeating: 0, count: 5 * outWidth)
        var total = 0.0
        a.values.withUnsafeBufferPointer { aValues in
            b.values.withUnsafeBufferPointer { bValues in
                rows.withUnsafeMutableBufferPointer { rows in
                    ring.withUnsafeMutableBufferPointer { ring in
                        means.withUnsafeMutableBufferPointer { means in
                            for row in 0..<a.height {
                                let start = row * width
                                for column in 0..<width {
                                    let p = Float(aValues[start + column]), q = Float(bValues[start + column])
                                    rows[column] = p
                                    rows[width + column] = q
                                    rows[2 * width + column] = p * p
                                    rows[3 * width + column] = q * q
                                    rows[4 * width + column] = p * q
                                }
                                let slot = row % side
                                for map in 0..<5 {
                                    filterRow(rows.baseAddress! + map * width,
                                              into: ring.baseAddress! + (map * side + slot) * outWidth,
                                              count: outWidth, weights: weights)
                                }
                                guard row >= side - 1 else { continue }
                                total += windowRow(ring, newest: slot, side: side, width: outWidth, weights: weights,
                                                   c1: c1, c2: c2, means: means)
                            }
                        }
                    }
                }
            }
        }
        return total / Double(outWidth * outHeight)
    }

    /// One row of `values` filtered horizontally by `weights`: `count` outputs, output `j` over
    /// inputs `j ..< j + weights.count`.
    private static func filterRow(_ values: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int,
                                  weights: [Float]) {
        for j in 0..<count { out[j] = 0 }
        for (k, weight) in weights.enumerated() {
            let shifted = values + k
            for j in 0..<count { out[j] += weight * shifted[j] }
        }
    }

    /// The sum of the SSIM of one row of windows: the ring's `side` filtered rows (the newest in
    /// slot `newest`) filtered vertically into `means` (5 × `width`), then combined.
    private static func windowRow(_ ring: UnsafeMutableBufferPointer<Float>, newest: Int, side: Int, width: Int,
                                  weights: [Float], c1: Float, c2: Float,
                                  means: UnsafeMutableBufferPointer<Float>) -> Double {
        means.update(repeating: 0)
        for map in 0..<5 {
            let out = means.baseAddress! + map * width
            for (k, weight) in weights.enumerated() {
                // The oldest of the ring's rows is the one after the newest.
                let slot = (newest + 1 + k) % side
                let source = ring.baseAddress! + (map * side + slot) * width
                for j in 0..<width { out[j] += weight * source[j] }
            }
        }
        var sum = 0.0
        for j in 0..<width {
            let mx = means[j], my = means[width + j]
            let vx = means[2 * width + j] - mx * mx, vy = means[3 * width + j] - my * my
            let cov = means[4 * width + j] - mx * my
            let numerator = (2 * mx * my + c1) * (2 * cov + c2)
            let denominator = (mx * mx + my * my + c1) * (vx + vy + c2)
            sum += Double(numerator / denominator)
        }
        return sum
    }

    /// The Gaussian of ``sigma`` over `side` taps centred on the middle one, summing to 1.
    static func gaussian(side: Int) -> [Float] {
        let centre = Double(side - 1) / 2
        let raw = (0..<side).map { index -> Double in
            let distance = Double(index) - centre
            return exp(-(distance * distance) / (2 * sigma * sigma))
        }
        let sum = raw.reduce(0, +)
        return raw.map { Float($0 / sum) }
    }
}

/// An image's 8-bit luma, row-major: BT.601's weights in integer form,
/// `(77 R + 150 G + 29 B + 128) >> 8`, of each pixel composited over an opaque background.
public struct LumaPlane: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width × height` luma values.
    public let values: [UInt8]

    /// The luma of `bitmap` composited over `background` (its alpha ignored).
    public init(_ bitmap: Bitmap, over background: RGBA = .white) {
        width = bitmap.width
        height = bitmap.height
        let count = bitmap.width * bitmap.height
        values = bitmap.withUnsafeBytes { pixels in
            [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                for index in 0..<count {
                    var colour = RGBA(r: pixels[4 * index], g: pixels[4 * index + 1], b: pixels[4 * index + 2],
                                      a: pixels[4 * index + 3])
                    if colour.a != 255 { colour = colour.flattened(over: background) }
                    out[index] = Self.luma(colour)
                }
                initialized = count
            }
        }
    }

    /// Luma values as they are (`values.count` must be `width × height`), for tests and callers
    /// with a grey plane of their own.
    public init(width: Int, height: Int, values: [UInt8]) {
        precondition(width > 0 && height > 0 && values.count == width * height, "LumaPlane needs width*height values")
        self.width = width
        self.height = height
        self.values = values
    }

    /// The luma of an opaque colour.
    @inline(__always)
    static func luma(_ colour: RGBA) -> UInt8 {
        UInt8(truncatingIfNeeded: (77 * UInt32(colour.r) + 150 * UInt32(colour.g) + 29 * UInt32(colour.b) + 128) >> 8)
    }
}
