import WebImage

/// Composes labelled tiles into one grid picture: each tile's picture is scaled to fit a square
/// cell (aspect kept), centred and blended over a dark background, with its label under it.
/// Each row of tiles given starts a new line of the grid.
enum ContactSheet {
    /// One picture on the sheet and what it shows.
    struct Tile {
        let bitmap: Bitmap
        let label: String

        init(_ bitmap: Bitmap, _ label: String) {
            self.bitmap = bitmap
            self.label = label
        }
    }

    /// The height of the label strip under each cell, in pixels.
    static let labelHeight = DemoFont.glyphHeight + 5

    /// The sheet for `rows` of tiles, at most `columns` tiles a line (longer rows wrap), with
    /// `cell`-pixel cells and `gap` pixels between them.
    static func make(_ rows: [[Tile]], columns: Int = 8, cell: Int = 128, gap: Int = 8,
                     background: RGBA = RGBA(r: 32, g: 34, b: 40)) -> Bitmap {
        let lines = rows.filter { !$0.isEmpty }.flatMap { row in
            stride(from: 0, to: row.count, by: columns).map { Array(row[$0..<min(row.count, $0 + columns)]) }
        }
        let columns = max(1, min(columns, lines.map(\.count).max() ?? 1))
        let pitch = cell + labelHeight + gap
        let width = gap + columns * (cell + gap), height = gap + max(1, lines.count) * pitch
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = background.r; pixels[i + 1] = background.g; pixels[i + 2] = background.b; pixels[i + 3] = 255
        }
        for (line, tiles) in lines.enumerated() {
            for (column, tile) in tiles.enumerated() {
                let cellLeft = gap + column * (cell + gap), cellTop = gap + line * pitch
                let fitted = ImageSizing.scaledSize(tile.bitmap.size, toFit: PixelSize(width: cell, height: cell),
                                                    preserveAspectRatio: true, allowUpscale: true)
                if !fitted.isEmpty, fitted.width <= cell, fitted.height <= cell {
                    let thumb = fitted == tile.bitmap.size ? tile.bitmap : Resampler.resize(tile.bitmap, to: fitted)
                    blend(thumb, into: &pixels, width: width, atX: cellLeft + (cell - thumb.width) / 2,
                          y: cellTop + (cell - thumb.height) / 2)
                }
                let label = fittedLabel(tile.label, width: cell)
                DemoFont.draw(label, into: &pixels, width: width,
                              atX: cellLeft + (cell - DemoFont.width(of: label)) / 2, y: cellTop + cell + 3,
                              color: RGBA(r: 230, g: 230, b: 235))
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// `label`, cut to as many characters as fit `width` pixels.
    static func fittedLabel(_ label: String, width: Int) -> String {
        String(label.prefix((width + 1) / DemoFont.advance))
    }

    /// Draws `source` (straight alpha) over the opaque `pixels` with its top-left at (x, y).
    private static func blend(_ source: Bitmap, into pixels: inout [UInt8], width: Int, atX x: Int, y: Int) {
        source.pixels.withUnsafeBufferPointer { src in
            for row in 0..<source.height {
                for column in 0..<source.width {
                    let s = (row * source.width + column) * 4
                    let d = ((y + row) * width + x + column) * 4
                    let alpha = Int(src[s + 3])
                    for channel in 0..<3 {
                        pixels[d + channel] = UInt8((Int(src[s + channel]) * alpha + Int(pixels[d + channel]) * (255 - alpha)) / 255)
                    }
                }
            }
        }
    }
}
