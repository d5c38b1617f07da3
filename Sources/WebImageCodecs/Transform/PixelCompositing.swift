/// Per-pixel helpers the transformers share. Colours travel premultiplied in `Float`
/// (channels 0…255, colour already multiplied by alpha ÷ 255) between reading and writing, so
/// blending and interpolation never produce dark fringes around transparent areas.
enum PixelCompositing {
    /// Writes a premultiplied colour at byte offset `o` as straight RGBA8.
    @inline(__always)
    static func storePremultiplied(_ r: Float, _ g: Float, _ b: Float, _ a: Float,
                                   into out: UnsafeMutableBufferPointer<UInt8>, at o: Int) {
        if a < 0.5 {
            out[o] = 0; out[o &+ 1] = 0; out[o &+ 2] = 0; out[o &+ 3] = 0
            return
        }
        let unpremultiply = 255 / a
        out[o] = Resampler.clamp8(r * unpremultiply)
        out[o &+ 1] = Resampler.clamp8(g * unpremultiply)
        out[o &+ 2] = Resampler.clamp8(b * unpremultiply)
        out[o &+ 3] = Resampler.clamp8(a)
    }

    /// Bilinear sample of `src` (a `width`×`height` RGBA8 bitmap) at continuous pixel coordinates
    /// (`x`, `y`), pixel centres at `i + 0.5`; outside the bitmap counts as transparent, which
    /// anti-aliases the edges of rotated content. Returns a premultiplied colour.
    @inline(__always)
    static func sampleBilinear(_ src: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                               x: Float, y: Float) -> (Float, Float, Float, Float) {
        let fx = x - 0.5, fy = y - 0.5
        guard fx > -1, fy > -1, fx < Float(width), fy < Float(height) else { return (0, 0, 0, 0) }
        let x0f = fx.rounded(.down), y0f = fy.rounded(.down)
        let x0 = Int(x0f), y0 = Int(y0f)
        let tx = fx - x0f, ty = fy - y0f
        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
        @inline(__always) func add(_ px: Int, _ py: Int, _ w: Float) {
            guard w > 0, px >= 0, py >= 0, px < width, py < height else { return }
            let i = (py &* width &+ px) &* 4
            let wa = w * Float(src[i &+ 3])
            r += Float(src[i]) * wa; g += Float(src[i &+ 1]) * wa; b += Float(src[i &+ 2]) * wa
            a += wa
        }
        add(x0, y0, (1 - tx) * (1 - ty))
        add(x0 &+ 1, y0, tx * (1 - ty))
        add(x0, y0 &+ 1, (1 - tx) * ty)
        add(x0 &+ 1, y0 &+ 1, tx * ty)
        let toPremultiplied: Float = 1 / 255
        return (r * toPremultiplied, g * toPremultiplied, b * toPremultiplied, a)
    }

    /// Copies `src` (`width` pixels per row) into a clear `canvas`-sized bitmap with its top-left
    /// corner at (`left`, `top`); parts falling outside the canvas are dropped.
    static func place(_ src: Bitmap, onClearCanvas canvas: PixelSize, left: Int, top: Int) -> Bitmap {
        Bitmap(width: canvas.width, height: canvas.height) { out in
            out.initialize(repeating: 0)
            let x0 = max(left, 0), x1 = min(left + src.width, canvas.width)
            let y0 = max(top, 0), y1 = min(top + src.height, canvas.height)
            guard x1 > x0, y1 > y0 else { return }
            src.pixels.withUnsafeBufferPointer { s in
                let rowBytes = (x1 - x0) * 4
                for y in y0..<y1 {
                    let from = ((y - top) * src.width + (x0 - left)) * 4
                    let to = (y * canvas.width + x0) * 4
                    UnsafeMutableRawPointer(out.baseAddress! + to)
                        .copyMemory(from: s.baseAddress! + from, byteCount: rowBytes)
                }
            }
        }
    }
}
