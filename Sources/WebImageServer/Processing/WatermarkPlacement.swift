import WebImage

/// Where imgproxy draws its watermark on a result, from sizes alone: the size the watermark is
/// scaled to, and the top-left corner of each copy drawn. Every number is clamped to ±2³¹ − 1
/// (``Rounding``), so no URL can overflow the arithmetic.
enum WatermarkPlacement {
    /// The watermark's size on a result of `result`: its own with a scale of 0, else fitted (and
    /// enlarged if need be) into `scale` × the result's size, at least 1 pixel a side.
    static func scaledSize(of mark: PixelSize, on result: PixelSize, scale: Double) -> PixelSize {
        guard scale > 0, mark.width > 0, mark.height > 0, result.width > 0, result.height > 0 else { return mark }
        let boxW = max(Rounding.even(Double(result.width) * scale), 1)
        let boxH = max(Rounding.even(Double(result.height) * scale), 1)
        let factor = min(Double(boxW) / Double(mark.width), Double(boxH) / Double(mark.height))
        return PixelSize(width: max(1, Rounding.nearest(Double(mark.width) * factor)),
                         height: max(1, Rounding.nearest(Double(mark.height) * factor)))
    }

    /// The top-left corners of the copies of a `mark`-sized watermark on a `result`-sized image:
    /// one anchored by its position and offsets (allowed past the edge, but never wholly off it),
    /// or, replicated, a grid of copies spaced by the offsets with one centred. `dpr` scales
    /// offsets given in pixels.
    static func origins(mark: PixelSize, result: PixelSize, watermark: ProcessingOptions.Watermark,
                        dpr: Double) -> (xs: [Int], ys: [Int]) {
        guard mark.width > 0, mark.height > 0, result.width > 0, result.height > 0 else { return ([], []) }
        let offsetX = offset(watermark.x, side: result.width, dpr: dpr)
        let offsetY = offset(watermark.y, side: result.height, dpr: dpr)
        if watermark.position == .replicate {
            return (tiled(mark.width, over: result.width, spacing: offsetX),
                    tiled(mark.height, over: result.height, spacing: offsetY))
        }
        let x: Int, y: Int
        switch watermark.position {
        case .west, .northWest, .southWest: x = offsetX
        case .east, .northEast, .southEast: x = result.width - mark.width - offsetX
        default: x = centred(mark.width, in: result.width) + offsetX
        }
        switch watermark.position {
        case .north, .northWest, .northEast: y = offsetY
        case .south, .southWest, .southEast: y = result.height - mark.height - offsetY
        default: y = centred(mark.height, in: result.height) + offsetY
        }
        return ([max(1 - mark.width, min(x, result.width - 1))], [max(1 - mark.height, min(y, result.height - 1))])
    }

    /// imgproxy's centring: half the leftover space plus one, rounded half to even.
    private static func centred(_ inner: Int, in outer: Int) -> Int {
        Rounding.even(Double(outer - inner + 1) / 2)
    }

    /// Pixels (× `dpr`) for magnitudes of 1 or more, else a fraction of `side`.
    private static func offset(_ value: Double, side: Int, dpr: Double) -> Int {
        abs(value) >= 1 ? Rounding.even(value * dpr) : Rounding.even(Double(side) * value)
    }

    /// The starts of copies of a `length` mark along a `side`: tiles of the mark with `spacing`
    /// split around it (a negative spacing counts as none), an odd number of them covering the
    /// side, centred on it, as libvips' replicate does for imgproxy. Only copies that reach into
    /// the side are listed.
    private static func tiled(_ length: Int, over side: Int, spacing: Int) -> [Int] {
        let spacing = max(0, spacing)
        let tile = length + spacing
        var count = (side + tile - 1) / tile
        if count % 2 == 0 { count += 1 }
        let start = (count * tile - side) / 2
        let first = -start + spacing / 2
        return (0..<count).map { first + $0 * tile }.filter { $0 < side && $0 + length > 0 }
    }
}
