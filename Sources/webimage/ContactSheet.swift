import WebImage

/// Composes images into one grid picture: each first frame is scaled to fit a square cell
/// (aspect kept), centred, and blended over a dark background.
enum ContactSheet {
    /// The sheet for `images`, `columns` wide, with `cell`-pixel cells and `gap` pixels between them.
    static func make(_ images: [Image], columns: Int = 8, cell: Int = 128, gap: Int = 8,
                     background: RGBA = RGBA(r: 32, g: 34, b: 40)) -> Bitmap {
        let columns = max(1, min(columns, images.count))
        let rows = max(1, (images.count + columns - 1) / columns)
        let width = gap + columns * (cell + gap), height = gap + rows * (cell + gap)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = background.r; pixels[i + 1] = background.g; pixels[i + 2] = background.b; pixels[i + 3] = 255
        }
        for (index, image) in images.enumerated() {
            let fitted = ImageSizing.scaledSize(image.pixelSize, toFit: PixelSize(width: cell, height: cell),
                                                preserveAspectRatio: true, allowUpscale: true)
            guard !fitted.isEmpty, fitted.width <= cell, fitted.height <= cell else { continue }
            let thumb = fitted == image.pixelSize ? image.bitmap : Resampler.resize(image.bitmap, to: fitted)
            let left = gap + (index % columns) * (cell + gap) + (cell - thumb.width) / 2
            let top = gap + (index / columns) * (cell + gap) + (cell - thumb.height) / 2
            blend(thumb, into: &pixels, width: width, atX: left, y: top)
        }
        return Bitmap(width: width, height: height, pixels: pixels)
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
