import Foundation

/// A BlurHash string checked and read into its colour components.
struct BlurHashComponents {
    /// Components across and down.
    let nx: Int, ny: Int
    /// The exact average colour.
    let average: RGBA
    /// Linear RGB per component, row by row, DC first.
    let colors: [(r: Double, g: Double, b: Double)]

    /// The longest well-formed hash: one character for the size, one for the maximum, four for the
    /// average and two for each of 80 AC components.
    static let maximumLength = 4 + 2 * BlurHash.maximumComponents * BlurHash.maximumComponents

    init(_ hash: String, punch: Double = 1) throws {
        let bytes = Array(hash.utf8.prefix(Self.maximumLength + 1))
        guard bytes.count >= 6, bytes.count <= Self.maximumLength else {
            throw Self.invalid(hash, "is \(hash.utf8.count) bytes long; a BlurHash has 6...\(Self.maximumLength)")
        }
        if let bad = bytes.firstIndex(where: { Base83.decode([$0], 0..<1) == nil }) {
            throw Self.invalid(hash, "has a byte outside the base-83 alphabet at offset \(bad)")
        }
        let sizeFlag = Base83.decode(bytes, 0..<1)!
        let nx = sizeFlag % 9 + 1, ny = sizeFlag / 9 + 1
        guard nx * ny * 2 + 4 == bytes.count else {
            throw Self.invalid(hash, "declares \(nx)x\(ny) components, which take \(nx * ny * 2 + 4) characters, "
                + "but has \(bytes.count)")
        }
        let maximum = Double(Base83.decode(bytes, 1..<2)! + 1) / 166 * punch
        let dc = Base83.decode(bytes, 2..<6)!
        guard dc <= 0xFF_FFFF else { throw Self.invalid(hash, "has an average colour above #ffffff") }
        let average = RGBA(r: UInt8(dc >> 16), g: UInt8(dc >> 8 & 255), b: UInt8(dc & 255))
        let linear = SRGBTransfer.linear
        var colors = [(r: linear[Int(average.r)], g: linear[Int(average.g)], b: linear[Int(average.b)])]
        for index in 1..<(nx * ny) {
            let value = Base83.decode(bytes, (4 + index * 2)..<(6 + index * 2))!
            guard value < 19 * 19 * 19 else {
                throw Self.invalid(hash, "has component \(index) out of range (\(value) > 6858)")
            }
            colors.append((Self.unquantise(value / 361, maximum), Self.unquantise(value / 19 % 19, maximum),
                           Self.unquantise(value % 19, maximum)))
        }
        self.nx = nx
        self.ny = ny
        self.average = average
        self.colors = colors
    }

    /// An opaque `width` × `height` bitmap of the components (sides already checked).
    func render(width: Int, height: Int) -> Bitmap {
        let w = Double(width), h = Double(height)
        let cosX = CosineTable(count: nx, length: width) { i, x in cos(Double.pi * x * i / w) }
        let cosY = CosineTable(count: ny, length: height) { j, y in cos(Double.pi * y * j / h) }
        return Bitmap(width: width, height: height) { out in
            var o = 0
            for y in 0..<height {
                for x in 0..<width {
                    var r = 0.0, g = 0.0, b = 0.0
                    for j in 0..<ny {
                        let fy = cosY[j, y]
                        for i in 0..<nx {
                            let basis = cosX[i, x] * fy, color = colors[i + j * nx]
                            r += color.r * basis
                            g += color.g * basis
                            b += color.b * basis
                        }
                    }
                    out[o] = UInt8(SRGBTransfer.encode(r))
                    out[o + 1] = UInt8(SRGBTransfer.encode(g))
                    out[o + 2] = UInt8(SRGBTransfer.encode(b))
                    out[o + 3] = 255
                    o += 4
                }
            }
        }
    }

    /// A quantised AC digit (0–18) back to a signed value scaled by `maximum`.
    private static func unquantise(_ digit: Int, _ maximum: Double) -> Double {
        let v = Double(digit - 9) / 9
        return (v < 0 ? -1 : 1) * v * v * maximum
    }

    private static func invalid(_ hash: String, _ problem: String) -> WebImageError {
        let shown = hash.count > 24 ? String(hash.prefix(24)) + "…" : hash
        return WebImageError(.badImageData, "BlurHash \"\(shown)\" \(problem)")
    }
}
