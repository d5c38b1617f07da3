import WebImage

/// imgproxy's `trim`: the rectangle left when the borders of one colour are removed, found as
/// libvips' `find_trim` finds it. Alpha is flattened over magenta for the comparison, each channel
/// is smoothed by a 3×3 median (edges repeated), and a pixel is content when any smoothed channel
/// differs from the border colour by more than the threshold. The rectangle is the bounding box
/// of the content; an image that is all border keeps its whole size.
enum BorderTrim {
    /// The colour transparency is flattened over before the comparison, as libvips does.
    static let flattenColor = RGBA(r: 255, g: 0, b: 255)

    /// The part of `bitmap` inside its borders: of `color` (the top-left pixel, flattened, when
    /// nil) within `threshold`; with `equalHorizontal` / `equalVertical`, the smaller of the two
    /// opposite margins is removed from both sides. The whole bitmap when nothing is trimmed.
    /// Throws when the work is cancelled (checked every row and column scanned).
    static func rect(in bitmap: Bitmap, threshold: Double, color: RGBA?, equalHorizontal: Bool,
                     equalVertical: Bool) throws -> PixelRect {
        let whole = PixelRect(x: 0, y: 0, width: bitmap.width, height: bitmap.height)
        guard bitmap.width > 0, bitmap.height > 0 else { return whole }
        let background = color ?? bitmap.pixel(x: 0, y: 0).flattened(over: flattenColor)
        let found = try bitmap.pixels.withUnsafeBufferPointer { pixels in
            try ContentScan(pixels: pixels, width: bitmap.width, height: bitmap.height,
                        background: background, threshold: threshold).bounds()
        }
        guard var content = found else { return whole }
        if equalHorizontal {
            let margin = min(content.x, bitmap.width - content.x - content.width)
            content = PixelRect(x: margin, y: content.y, width: bitmap.width - 2 * margin, height: content.height)
        }
        if equalVertical {
            let margin = min(content.y, bitmap.height - content.y - content.height)
            content = PixelRect(x: content.x, y: margin, width: content.width, height: bitmap.height - 2 * margin)
        }
        return content
    }
}

/// The search for content in one bitmap: rows from the top and the bottom, then columns from
/// the left and the right between those rows, so the work is the border's size plus a line.
private struct ContentScan {
    let pixels: UnsafeBufferPointer<UInt8>
    let width: Int
    let height: Int
    /// Per channel, the flattened values above this are brighter than the border by more than the threshold.
    let above: (Double, Double, Double)
    /// Per channel, the flattened values below this are darker than the border by more than the threshold.
    let below: (Double, Double, Double)

    init(pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, background: RGBA, threshold: Double) {
        self.pixels = pixels
        self.width = width
        self.height = height
        above = (Double(background.r) + threshold, Double(background.g) + threshold, Double(background.b) + threshold)
        below = (Double(background.r) - threshold, Double(background.g) - threshold, Double(background.b) - threshold)
    }

    /// The bounding box of the content; nil when there is none.
    func bounds() throws -> PixelRect? {
        guard let top = try (0..<height).first(where: { try rowHasContent($0) }),
              let bottom = try (top..<height).reversed().first(where: { try rowHasContent($0) }) else { return nil }
        let left = try (0..<width).first { try columnHasContent($0, rows: top...bottom) } ?? 0
        let right = try (left..<width).reversed().first { try columnHasContent($0, rows: top...bottom) } ?? width - 1
        return PixelRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }

    private func rowHasContent(_ y: Int) throws -> Bool {
        try WorkCancellation.checkCurrent()
        return (0..<width).contains { isContent(x: $0, y: y) }
    }

    private func columnHasContent(_ x: Int, rows: ClosedRange<Int>) throws -> Bool {
        try WorkCancellation.checkCurrent()
        return rows.contains { isContent(x: x, y: $0) }
    }

    /// Whether the 3×3 median of some channel around (x, y) passes the threshold: the median is
    /// above a bound exactly when at least five of the nine values are, and likewise below.
    private func isContent(x: Int, y: Int) -> Bool {
        var counts = (above: (0, 0, 0), below: (0, 0, 0))
        for dy in -1...1 {
            let row = min(max(y + dy, 0), height - 1)
            for dx in -1...1 {
                let column = min(max(x + dx, 0), width - 1)
                let (r, g, b) = flattened(at: (row * width + column) * 4)
                if r > above.0 { counts.above.0 += 1 } else if r < below.0 { counts.below.0 += 1 }
                if g > above.1 { counts.above.1 += 1 } else if g < below.1 { counts.below.1 += 1 }
                if b > above.2 { counts.above.2 += 1 } else if b < below.2 { counts.below.2 += 1 }
            }
        }
        return counts.above.0 >= 5 || counts.above.1 >= 5 || counts.above.2 >= 5
            || counts.below.0 >= 5 || counts.below.1 >= 5 || counts.below.2 >= 5
    }

    /// The pixel at byte `index` composited over ``BorderTrim/flattenColor``.
    private func flattened(at index: Int) -> (Double, Double, Double) {
        let alpha = Int(pixels[index + 3])
        if alpha == 255 { return (Double(pixels[index]), Double(pixels[index + 1]), Double(pixels[index + 2])) }
        let pixel = RGBA(r: pixels[index], g: pixels[index + 1], b: pixels[index + 2], a: UInt8(alpha))
            .flattened(over: BorderTrim.flattenColor)
        return (Double(pixel.r), Double(pixel.g), Double(pixel.b))
    }
}
