import Foundation

/// Wolt's BlurHash: a short string (6–166 characters) holding a blurred picture of an image as a
/// few cosine components, to show while the image loads.
///
/// Encoding and decoding follow the reference implementation (github.com/woltapp/blurhash):
/// the same components, quantisation and base-83 digits, so hashes made here decode anywhere and
/// the reverse. Every input is checked: a malformed hash string, a component count outside 1–9 or
/// a decode size outside ``PlaceholderLimits/maximumDecodeSide`` throws
/// ``WebImageError/Code/badImageData`` with a message saying which.
public enum BlurHash {
    /// The most components on either axis.
    public static let maximumComponents = 9

    /// The hash of `bitmap` with `xComponents` × `yComponents` components (each 1–9; 4 × 3 is the
    /// common choice). Alpha is ignored, as in the reference. A bitmap with a side longer than 100
    /// pixels is first shrunk to fit 100 × 100, which changes the hash little and bounds the work.
    public static func encode(_ bitmap: Bitmap, xComponents: Int = 4, yComponents: Int = 3) throws -> String {
        let range = 1...maximumComponents
        guard range.contains(xComponents), range.contains(yComponents) else {
            throw WebImageError(.badImageData,
                                "BlurHash components \(xComponents)x\(yComponents) must each be 1...\(maximumComponents)")
        }
        let source = PlaceholderInput.shrunk(bitmap)
        let factors = source.withUnsafeBytes { pixels in
            Self.factors(pixels, width: source.width, height: source.height, nx: xComponents, ny: yComponents)
        }
        var output: [UInt8] = []
        output.reserveCapacity(4 + 2 * xComponents * yComponents)
        Base83.append((xComponents - 1) + (yComponents - 1) * 9, length: 1, to: &output)
        let ac = factors.dropFirst()
        let maximum: Double
        if ac.isEmpty {
            maximum = 1
            Base83.append(0, length: 1, to: &output)
        } else {
            let actual = ac.reduce(0.0) { max($0, abs($1.r), abs($1.g), abs($1.b)) }
            let quantised = Int(max(0, min(82, (actual * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            Base83.append(quantised, length: 1, to: &output)
        }
        let dc = factors[0]
        let average = SRGBTransfer.encode(dc.r) << 16 | SRGBTransfer.encode(dc.g) << 8 | SRGBTransfer.encode(dc.b)
        Base83.append(average, length: 4, to: &output)
        for factor in ac {
            let value = quantiseAC(factor.r, maximum) * 361 + quantiseAC(factor.g, maximum) * 19
                + quantiseAC(factor.b, maximum)
            Base83.append(value, length: 2, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The number of components on each axis `hash` holds, after checking it is well formed.
    public static func components(of hash: String) throws -> (x: Int, y: Int) {
        let parsed = try BlurHashComponents(hash)
        return (parsed.nx, parsed.ny)
    }

    /// The average colour `hash` stores exactly, opaque.
    public static func averageColor(of hash: String) throws -> RGBA {
        try BlurHashComponents(hash).average
    }

    /// The picture `hash` holds, as an opaque still image of `width` × `height` pixels (each
    /// 1...``PlaceholderLimits/maximumDecodeSide``; 32 × 32 scaled up by the view is typical).
    /// `punch` (> 0, 1 by default) multiplies the contrast of the varying components.
    public static func decode(_ hash: String, width: Int, height: Int, punch: Double = 1) throws -> Image {
        try PlaceholderInput.checkDecodeSize(width: width, height: height, hash: "BlurHash")
        guard punch.isFinite, punch > 0, punch <= 100 else {
            throw WebImageError(.badImageData, "BlurHash punch \(punch) must be above 0 and at most 100")
        }
        let parsed = try BlurHashComponents(hash, punch: punch)
        return Image(bitmap: parsed.render(width: width, height: height))
    }

    /// The DCT factors, row by row: `ny` rows of `nx`, DC first.
    private static func factors(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                                nx: Int, ny: Int) -> [(r: Double, g: Double, b: Double)] {
        let w = Double(width), h = Double(height)
        let cosX = CosineTable(count: nx, length: width) { i, x in cos(Double.pi * i * x / w) }
        let cosY = CosineTable(count: ny, length: height) { j, y in cos(Double.pi * j * y / h) }
        var sums = [Double](repeating: 0, count: nx * ny * 3)
        let linear = SRGBTransfer.linear
        for y in 0..<height {
            for x in 0..<width {
                let p = (y * width + x) * 4
                let r = linear[Int(pixels[p])], g = linear[Int(pixels[p + 1])], b = linear[Int(pixels[p + 2])]
                for j in 0..<ny {
                    let fy = cosY[j, y]
                    for i in 0..<nx {
                        let basis = cosX[i, x] * fy, k = (j * nx + i) * 3
                        sums[k] += basis * r
                        sums[k + 1] += basis * g
                        sums[k + 2] += basis * b
                    }
                }
            }
        }
        let pixelCount = Double(width * height)
        return (0..<nx * ny).map { index in
            let scale = (index == 0 ? 1.0 : 2.0) / pixelCount
            return (sums[index * 3] * scale, sums[index * 3 + 1] * scale, sums[index * 3 + 2] * scale)
        }
    }

    /// One AC channel as a digit 0–18.
    private static func quantiseAC(_ value: Double, _ maximum: Double) -> Int {
        let v = value / maximum
        let root = (v < 0 ? -1.0 : 1.0) * abs(v).squareRoot()
        return Int(max(0, min(18, (root * 9 + 9.5).rounded(.down))))
    }
}
