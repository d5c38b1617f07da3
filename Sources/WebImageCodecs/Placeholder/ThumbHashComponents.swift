import Foundation

/// A ThumbHash checked and read into its channels' components.
struct ThumbHashComponents {
    let lDC: Double, pDC: Double, qDC: Double, aDC: Double
    let hasAlpha: Bool
    /// Luminance components across and down (at least 3 each).
    let lx: Int, ly: Int
    /// The source's approximate width / height, from the stored component counts.
    let aspectRatio: Double
    let lAC: [Double], pAC: [Double], qAC: [Double], aAC: [Double]

    init(_ hash: [UInt8]) throws {
        guard hash.count >= 5 else { throw Self.invalid("is \(hash.count) bytes; the header alone is 5") }
        let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
        let header16 = Int(hash[3]) | Int(hash[4]) << 8
        let hasAlpha = header24 >> 23 != 0, isLandscape = header16 >> 15 != 0
        let storedSide = header16 & 7
        guard storedSide > 0 else { throw Self.invalid("stores no luminance components on its shorter side") }
        let longSide = hasAlpha ? 5 : 7
        let rawX = isLandscape ? longSide : storedSide, rawY = isLandscape ? storedSide : longSide
        let lx = max(3, rawX), ly = max(3, rawY)
        let start = hasAlpha ? 6 : 5
        let acCount = Self.acCount(nx: lx, ny: ly) + 2 * Self.acCount(nx: 3, ny: 3)
            + (hasAlpha ? Self.acCount(nx: 5, ny: 5) : 0)
        let expected = start + (acCount + 1) / 2
        guard hash.count == expected else {
            throw Self.invalid("is \(hash.count) bytes, but its header describes \(expected)")
        }

        var index = 0
        func channel(nx: Int, ny: Int, scale: Double) -> [Double] {
            (0..<Self.acCount(nx: nx, ny: ny)).map { _ in
                let nibble = Int(hash[start + index >> 1]) >> ((index & 1) << 2) & 15
                index += 1
                return (Double(nibble) / 7.5 - 1) * scale
            }
        }
        let lScale = Double(header24 >> 18 & 31) / 31
        let pScale = Double(header16 >> 3 & 63) / 63, qScale = Double(header16 >> 9 & 63) / 63
        self.lAC = channel(nx: lx, ny: ly, scale: lScale)
        // Saturation boosted by 1.25 to make up for quantisation, as the reference does.
        self.pAC = channel(nx: 3, ny: 3, scale: pScale * 1.25)
        self.qAC = channel(nx: 3, ny: 3, scale: qScale * 1.25)
        self.aAC = hasAlpha ? channel(nx: 5, ny: 5, scale: Double(hash[5] >> 4) / 15) : []
        self.lDC = Double(header24 & 63) / 63
        self.pDC = Double(header24 >> 6 & 63) / 31.5 - 1
        self.qDC = Double(header24 >> 12 & 63) / 31.5 - 1
        self.aDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
        self.hasAlpha = hasAlpha
        self.lx = lx
        self.ly = ly
        self.aspectRatio = Double(rawX) / Double(rawY)
    }

    /// The number of AC components in an `nx` × `ny` triangle of the DCT.
    static func acCount(nx: Int, ny: Int) -> Int {
        var count = 0
        for cy in 0..<ny {
            var cx = cy > 0 ? 0 : 1
            while cx * ny < nx * (ny - cy) { count += 1; cx += 1 }
        }
        return count
    }

    /// The average colour, from the DC terms.
    var averageColor: RGBA {
        let (r, g, b) = Self.rgb(l: lDC, p: pDC, q: qDC)
        return RGBA(r: Self.byte(r, rounded: true), g: Self.byte(g, rounded: true),
                    b: Self.byte(b, rounded: true), a: Self.byte(aDC, rounded: true))
    }

    /// A `width` × `height` bitmap of the components (sides already checked).
    func render(width: Int, height: Int) -> Bitmap {
        let w = Double(width), h = Double(height)
        let nxTable = max(lx, hasAlpha ? 5 : 3), nyTable = max(ly, hasAlpha ? 5 : 3)
        let fxTable = CosineTable(count: nxTable, length: width) { cx, x in cos(Double.pi / w * (x + 0.5) * cx) }
        let fyTable = CosineTable(count: nyTable, length: height) { cy, y in cos(Double.pi / h * (y + 0.5) * cy) }
        return Bitmap(width: width, height: height) { out in
            var o = 0
            for y in 0..<height {
                for x in 0..<width {
                    var l = lDC, p = pDC, q = qDC, a = aDC
                    var j = 0
                    for cy in 0..<ly {
                        let fy2 = fyTable[cy, y] * 2
                        var cx = cy > 0 ? 0 : 1
                        while cx * ly < lx * (ly - cy) {
                            l += lAC[j] * fxTable[cx, x] * fy2
                            cx += 1; j += 1
                        }
                    }
                    j = 0
                    for cy in 0..<3 {
                        let fy2 = fyTable[cy, y] * 2
                        var cx = cy > 0 ? 0 : 1
                        while cx < 3 - cy {
                            let f = fxTable[cx, x] * fy2
                            p += pAC[j] * f
                            q += qAC[j] * f
                            cx += 1; j += 1
                        }
                    }
                    if hasAlpha {
                        j = 0
                        for cy in 0..<5 {
                            let fy2 = fyTable[cy, y] * 2
                            var cx = cy > 0 ? 0 : 1
                            while cx < 5 - cy {
                                a += aAC[j] * fxTable[cx, x] * fy2
                                cx += 1; j += 1
                            }
                        }
                    }
                    let (r, g, b) = Self.rgb(l: l, p: p, q: q)
                    out[o] = Self.byte(r, rounded: false)
                    out[o + 1] = Self.byte(g, rounded: false)
                    out[o + 2] = Self.byte(b, rounded: false)
                    out[o + 3] = Self.byte(a, rounded: false)
                    o += 4
                }
            }
        }
    }

    /// Luminance, yellow–blue and red–green back to RGB.
    private static func rgb(l: Double, p: Double, q: Double) -> (Double, Double, Double) {
        let b = l - 2 / 3 * p
        let r = (3 * l - b + q) / 2
        return (r, r - q, b)
    }

    /// A 0–1 value as a byte: truncated, as the reference stores pixels, or rounded.
    private static func byte(_ value: Double, rounded: Bool) -> UInt8 {
        guard value.isFinite else { return 0 }
        let scaled = max(0, 255 * min(1, value))
        return UInt8(rounded ? scaled.rounded() : scaled)
    }

    private static func invalid(_ problem: String) -> WebImageError {
        WebImageError(.badImageData, "ThumbHash \(problem)")
    }
}
