import CGIF

/// Improves a quantized colour table and the pixels' indices into it.
///
/// Each pixel is mapped to its nearest table colour, every entry is moved to the mean of its
/// pixels (one k-means step), and pixels are mapped again. Nearest-colour searches are cached
/// per 15-bit colour cell, so the cost is bounded by 32,768 searches whatever the frame size.
struct GIFPaletteRefiner {
    private(set) var colors: [GifColorType]

    init(colors: [GifColorType]) {
        self.colors = colors
    }

    /// Rewrites `indices` (one per pixel of the `red`/`green`/`blue` planes) and the table; throws
    /// ``WebImageError/Code/cancelled`` between blocks of pixels once the thread's
    /// ``WorkCancellation`` is cancelled.
    mutating func refine(red: [UInt8], green: [UInt8], blue: [UInt8], into indices: inout [UInt8]) throws {
        guard colors.count > 1 else { return }
        try remap(red: red, green: green, blue: blue, into: &indices)
        var sums = [(r: Int, g: Int, b: Int, n: Int)](repeating: (0, 0, 0, 0), count: colors.count)
        for i in indices.indices {
            if i & GIFQuantizer.pixelsBetweenChecks == 0 { try WorkCancellation.checkCurrent() }
            let k = Int(indices[i])
            sums[k].r += Int(red[i]); sums[k].g += Int(green[i]); sums[k].b += Int(blue[i]); sums[k].n += 1
        }
        for (k, sum) in sums.enumerated() where sum.n > 0 {
            let half = sum.n / 2
            colors[k] = GifColorType(Red: UInt8((sum.r + half) / sum.n), Green: UInt8((sum.g + half) / sum.n),
                                     Blue: UInt8((sum.b + half) / sum.n))
        }
        try remap(red: red, green: green, blue: blue, into: &indices)
    }

    private func remap(red: [UInt8], green: [UInt8], blue: [UInt8], into indices: inout [UInt8]) throws {
        var cache = [Int16](repeating: -1, count: 1 << 15)
        for i in indices.indices {
            if i & GIFQuantizer.pixelsBetweenChecks == 0 { try WorkCancellation.checkCurrent() }
            let r = red[i], g = green[i], b = blue[i]
            let cell = Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3)
            if cache[cell] < 0 { cache[cell] = Int16(nearest(r, g, b)) }
            indices[i] = UInt8(cache[cell])
        }
    }

    private func nearest(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        var best = 0, bestDistance = Int.max
        for (k, c) in colors.enumerated() {
            let dr = Int(c.Red) - Int(r), dg = Int(c.Green) - Int(g), db = Int(c.Blue) - Int(b)
            let distance = dr * dr + dg * dg + db * db
            if distance < bestDistance { best = k; bestDistance = distance }
        }
        return best
    }
}
