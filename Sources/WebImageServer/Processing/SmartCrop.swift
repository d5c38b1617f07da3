import WebImage

/// Where smart gravity (`g:sm`) puts a crop window: over the part of the image that holds the
/// most of its ``SaliencyMap`` — edges, saturated colour and skin tones. The map is made of the
/// image reduced to at most ``mapSide`` pixels a side, and every window position is scored from a
/// summed-area table of it, so the choice costs a few milliseconds whatever the image's size.
/// Among positions that hold as much, the one nearest the centre wins: a plain image is cropped
/// in the middle.
enum SmartCrop {
    /// The longer side of the reduced image the map is made of.
    static let mapSide = 160

    /// The `size` window of `bitmap` (at most the bitmap's size on each side) holding the most.
    static func window(in bitmap: Bitmap, size: PixelSize) -> PixelRect {
        let width = min(max(size.width, 1), bitmap.width), height = min(max(size.height, 1), bitmap.height)
        guard width < bitmap.width || height < bitmap.height else {
            return PixelRect(x: 0, y: 0, width: bitmap.width, height: bitmap.height)
        }
        let shrink = min(1, Double(mapSide) / Double(max(bitmap.width, bitmap.height)))
        let small = PixelSize(width: max(1, Int((Double(bitmap.width) * shrink).rounded())),
                              height: max(1, Int((Double(bitmap.height) * shrink).rounded())))
        let reduced = small == bitmap.size ? bitmap : Resampler.resize(bitmap, to: small, filter: .area)
        let map = SaliencyMap(reduced)
        let scaleX = Double(small.width) / Double(bitmap.width), scaleY = Double(small.height) / Double(bitmap.height)
        let mapWindow = PixelSize(width: min(max(1, Int((Double(width) * scaleX).rounded())), small.width),
                                  height: min(max(1, Int((Double(height) * scaleY).rounded())), small.height))
        let best = bestOrigin(map, window: mapWindow)
        return PixelRect(x: place(best.x, mapSpan: small.width - mapWindow.width, span: bitmap.width - width),
                         y: place(best.y, mapSpan: small.height - mapWindow.height, span: bitmap.height - height),
                         width: width, height: height)
    }

    /// A window offset on the map (0...`mapSpan`) as one in the image (0...`span`), in proportion;
    /// the map's middle is the image's middle, where the other gravities put it.
    static func place(_ offset: Int, mapSpan: Int, span: Int) -> Int {
        guard mapSpan > 0, abs(2 * offset - mapSpan) > 1 else { return Rounding.even(Double(span + 1) / 2) }
        return min(max(Int((Double(offset) * Double(span) / Double(mapSpan)).rounded()), 0), span)
    }

    /// The top-left of the `window`-sized box holding the largest sum of `map`; ties go to the
    /// position nearest the centre.
    static func bestOrigin(_ map: SaliencyMap, window: PixelSize) -> PixelPoint {
        let w = map.width, h = map.height
        // table[(y * (w + 1)) + x]: the sum of scores above and left of (x, y).
        var table = [Double](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            var row = 0.0
            for x in 0..<w {
                row += Double(map.scores[y * w + x])
                table[(y + 1) * (w + 1) + x + 1] = table[y * (w + 1) + x + 1] + row
            }
        }
        let spanX = w - window.width, spanY = h - window.height
        var best = PixelPoint(x: spanX / 2, y: spanY / 2)
        var bestSum = -1.0, bestDistance = Int.max
        for y in 0...spanY {
            for x in 0...spanX {
                let x1 = x + window.width, y1 = y + window.height
                let sum = table[y1 * (w + 1) + x1] - table[y * (w + 1) + x1] - table[y1 * (w + 1) + x] + table[y * (w + 1) + x]
                let dx = 2 * x - spanX, dy = 2 * y - spanY
                let distance = dx * dx + dy * dy
                // Sums within a rounding step of each other are a tie.
                let tolerance = 1e-9 * max(1, abs(bestSum))
                if sum > bestSum + tolerance || (sum >= bestSum - tolerance && distance < bestDistance) {
                    best = PixelPoint(x: x, y: y)
                    bestSum = sum
                    bestDistance = distance
                }
            }
        }
        return best
    }
}
