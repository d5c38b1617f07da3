import Foundation

/// Computes one ThumbHash from at most 100 × 100 straight-alpha RGBA pixels, step for step as
/// the reference does so that the bytes match.
struct ThumbHashEncoder {
    let pixels: UnsafeBufferPointer<UInt8>
    let width: Int, height: Int

    func hash() -> [UInt8] {
        let count = width * height
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<count {
            let j = i * 4, alpha = Double(pixels[j + 3]) / 255
            avgR += alpha / 255 * Double(pixels[j])
            avgG += alpha / 255 * Double(pixels[j + 1])
            avgB += alpha / 255 * Double(pixels[j + 2])
            avgA += alpha
        }
        if avgA > 0 { avgR /= avgA; avgG /= avgA; avgB /= avgA }

        let hasAlpha = avgA < Double(count)
        let lLimit = hasAlpha ? 5.0 : 7.0
        let longer = Double(max(width, height))
        let lx = max(1, Int((lLimit * Double(width) / longer).rounded()))
        let ly = max(1, Int((lLimit * Double(height) / longer).rounded()))
        // Each pixel composited over the average colour, then as luminance, yellow–blue,
        // red–green and alpha.
        var l = [Double](repeating: 0, count: count), p = l, q = l, a = l
        for i in 0..<count {
            let j = i * 4, alpha = Double(pixels[j + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(pixels[j])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(pixels[j + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(pixels[j + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }

        let lum = encodeChannel(l, nx: max(3, lx), ny: max(3, ly))
        let yb = encodeChannel(p, nx: 3, ny: 3)
        let rg = encodeChannel(q, nx: 3, ny: 3)
        let alphaChannel = hasAlpha ? encodeChannel(a, nx: 5, ny: 5) : nil

        let isLandscape = width > height
        let header24 = Self.round(63 * lum.dc) | Self.round(31.5 + 31.5 * yb.dc) << 6
            | Self.round(31.5 + 31.5 * rg.dc) << 12 | Self.round(31 * lum.scale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx) | Self.round(63 * yb.scale) << 3
            | Self.round(63 * rg.scale) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16 & 255),
                             UInt8(header16 & 255), UInt8(header16 >> 8 & 255)]
        if let alphaChannel {
            hash.append(UInt8(Self.round(15 * alphaChannel.dc) | Self.round(15 * alphaChannel.scale) << 4))
        }
        let start = hash.count
        var index = 0
        for channel in [lum, yb, rg] + (alphaChannel.map { [$0] } ?? []) {
            for factor in channel.ac {
                if start + index >> 1 == hash.count { hash.append(0) }
                hash[start + index >> 1] |= UInt8(Self.round(15 * factor) << ((index & 1) << 2))
                index += 1
            }
        }
        return hash
    }

    /// The DC term, the AC terms normalised to 0–1 around 0.5, and the scale they were divided by.
    private func encodeChannel(_ channel: [Double], nx: Int, ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
        var dc = 0.0, ac: [Double] = [], scale = 0.0
        let w = Double(width), h = Double(height)
        var fx = [Double](repeating: 0, count: width)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                var f = 0.0
                for x in 0..<width { fx[x] = cos(Double.pi / w * Double(cx) * (Double(x) + 0.5)) }
                for y in 0..<height {
                    let fy = cos(Double.pi / h * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<width { f += channel[x + y * width] * fx[x] * fy }
                }
                f /= w * h
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 {
            for i in ac.indices { ac[i] = 0.5 + 0.5 / scale * ac[i] }
        }
        return (dc, ac, scale)
    }

    /// JavaScript's `Math.round` for the non-negative values the hash stores, kept to 0…63 so a
    /// value can never spill into a neighbouring bit field.
    private static func round(_ value: Double) -> Int {
        guard value.isFinite else { return 0 }
        return min(63, max(0, Int((value + 0.5).rounded(.down))))
    }
}
